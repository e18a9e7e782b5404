//go:build benchprofile

package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"runtime"
)

// This file is built only with -tags benchprofile, as go run ./bench
// -profile builds the gateway: when SWITCHYARD_PPROF_ADDR names a loopback
// address ("127.0.0.1:0" picks a port), the process serves net/http/pprof
// there, with block, mutex and finer allocation profiling on, and says
// where on stderr in a JSON line {"msg":"pprof listening","addr":...}
// before anything else. The shipped binary does not link net/http/pprof
// (TestImports in internal/app checks it).
func init() {
	addr := os.Getenv("SWITCHYARD_PPROF_ADDR")
	if addr == "" {
		return
	}
	ln, err := listenPprof(addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "switchyard: pprof:", err)
		os.Exit(2)
	}
	line, _ := json.Marshal(map[string]string{"msg": "pprof listening", "addr": ln.Addr().String()})
	fmt.Fprintln(os.Stderr, string(line))
	// Lives as long as the process: a profiling build's debug listener.
	go http.Serve(ln, pprofMux())
}

// Sampling: a blocking event is recorded about once per blockRate
// nanoseconds blocked, one mutex contention event in mutexFraction, one
// allocation per memRate bytes allocated (the default, 512 KiB, sees too
// few of a request's small allocations in a few seconds).
const (
	blockRate     = 10_000
	mutexFraction = 10
	memRate       = 4096
)

// listenPprof listens on addr, which must be a loopback address, and turns
// block and mutex profiling on.
func listenPprof(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("%s is not a loopback address", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	runtime.MemProfileRate = memRate
	runtime.SetBlockProfileRate(blockRate)
	runtime.SetMutexProfileFraction(mutexFraction)
	return ln, nil
}

// pprofMux serves net/http/pprof's handlers under /debug/pprof/.
func pprofMux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}
