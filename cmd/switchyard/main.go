// Command switchyard is a self-hostable, OpenAI-compatible model gateway.
package main

import (
	"context"
	"os"

	"github.com/switchyard-gw/switchyard/internal/cli"
)

func main() {
	os.Exit(cli.Run(context.Background(), os.Args[1:], cli.OSEnv()))
}
