// Command fakeupstream serves the strict fake upstreams (OpenAI-compatible,
// Anthropic, Gemini) on loopback ports for the Node end-to-end tests. It
// prints one "name=base URL" line per fake, then "ready", and stops when
// stdin closes or on SIGTERM. -latency and -token-delay slow the OpenAI
// fake's answers and streams (the load-balanced test's drains need
// requests in flight).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	fakeanthropic "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/anthropic"
	fakegemini "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/gemini"
	fakeopenai "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/openai"
)

func main() {
	latency := flag.Duration("latency", 0, "delay before the OpenAI fake's response headers")
	tokenDelay := flag.Duration("token-delay", 0, "delay between the OpenAI fake's stream chunks")
	flag.Parse()
	oa := fakeopenai.Start(fakeopenai.Options{Latency: *latency, TokenDelay: *tokenDelay})
	defer oa.Close()
	an := fakeanthropic.Start(fakeanthropic.Options{})
	defer an.Close()
	ge := fakegemini.Start(fakegemini.Options{})
	defer ge.Close()
	fmt.Println("openai=" + oa.URL)
	fmt.Println("anthropic=" + an.URL)
	fmt.Println("gemini=" + ge.URL)
	fmt.Println("gemini_key=" + fakegemini.DefaultKey)
	fmt.Println("ready")
	done := make(chan struct{})
	go func() { io.Copy(io.Discard, os.Stdin); close(done) }()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	select {
	case <-done:
	case <-sig:
	}
}
