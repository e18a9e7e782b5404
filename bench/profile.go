package main

import (
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
)

// profiles are what -profile collects over a measurement: the file
// suffix, the net/http/pprof path, and go tool pprof's options for its top.
var profiles = []struct{ name, path, top string }{
	{"cpu", "profile", ""},
	{"allocs", "allocs", "-sample_index=alloc_objects"},
	{"block", "block", ""},
	{"mutex", "mutex", ""},
}

// profPrefix is the path prefix of a target's profiles in dir; "" when
// there is no dir.
func profPrefix(dir, name string) string {
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, name)
}

// profileRun starts collecting t's profiles for the next d, into files
// named prefix.cpu.pprof and so on, and returns the function that waits
// for them. The CPU profile covers d; the others are deltas over d.
func profileRun(t target, prefix string, d time.Duration) (wait func() error) {
	if t.pprof == "" || t.prof == "" {
		return func() error { return nil }
	}
	secs := max(1, int(math.Ceil(d.Seconds())))
	var wg sync.WaitGroup
	errs := make([]error, len(profiles))
	for i, p := range profiles {
		wg.Go(func() {
			errs[i] = fetchProfile(fmt.Sprintf("%s/debug/pprof/%s?seconds=%d", t.pprof, p.path, secs), prefix+"."+p.name+".pprof")
		})
	}
	return func() error {
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				return err
			}
		}
		return nil
	}
}

// fetchProfile saves the profile at url into file.
func fetchProfile(url, file string) error {
	resp, err := http.Get(url)
	if err != nil {
		return fmt.Errorf("profile: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1000))
		return fmt.Errorf("profile %s: status %d: %s", url, resp.StatusCode, b)
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return fmt.Errorf("profile %s: %w", url, err)
	}
	return f.Close()
}

// printProfiles prints go tool pprof -top -nodecount=25 of each profile
// in dir.
func printProfiles(dir string) error {
	for _, p := range profiles {
		files, err := filepath.Glob(filepath.Join(dir, "*."+p.name+".pprof"))
		if err != nil {
			return err
		}
		for _, f := range files {
			args := []string{"tool", "pprof", "-top", "-nodecount=25"}
			if p.top != "" {
				args = append(args, p.top)
			}
			out, err := exec.Command("go", append(args, f)...).CombinedOutput()
			if err != nil {
				return fmt.Errorf("go %v: %w\n%s", args, err, out)
			}
			fmt.Printf("\n## %s (go %s %s)\n\n```\n%s```\n", filepath.Base(f), strings.Join(args, " "), f, out)
		}
	}
	return nil
}

// servePprof serves net/http/pprof on a loopback port for the life of the
// proxy process, with block, mutex and allocation profiling at the
// gateway's rates
// (cmd/switchyard/pprof.go), and returns its base URL.
func servePprof() string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	runtime.MemProfileRate = 4096
	runtime.SetBlockProfileRate(10_000)
	runtime.SetMutexProfileFraction(10)
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	go http.Serve(ln, mux)
	return "http://" + ln.Addr().String()
}
