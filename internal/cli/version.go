package cli

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
)

// version is set at build time with -ldflags "-X ...cli.version=v1.2.3".
var version = ""

// Version returns the build's version: the -ldflags value, else the module
// version, else the VCS revision, else "devel".
func Version() string {
	if version != "" {
		return version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			return "devel-" + s.Value[:12]
		}
	}
	return "devel"
}

func runVersion(ctx context.Context, env Env, args []string) error {
	fs, _ := newFlags(env, "version")
	if err := parse(fs, args, 0); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "switchyard %s %s %s/%s\n", Version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}
