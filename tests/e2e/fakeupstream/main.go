// Command fakeupstream serves the strict fake OpenAI-compatible upstream on
// a loopback port for the Node end-to-end tests, printing its base URL on
// the first line of stdout. It stops when stdin closes or on SIGTERM.
package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/switchyard-gw/switchyard/internal/fakeupstream"
)

func main() {
	s := fakeupstream.Start(fakeupstream.Options{})
	defer s.Close()
	fmt.Println(s.URL)
	done := make(chan struct{})
	go func() { io.Copy(io.Discard, os.Stdin); close(done) }()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	select {
	case <-done:
	case <-sig:
	}
}
