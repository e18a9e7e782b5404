package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/apikey"
	"github.com/switchyard-gw/switchyard/internal/app"
	"github.com/switchyard-gw/switchyard/internal/config"
	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/testing/bareproxy"
	fakeopenai "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/openai"
)

// BenchmarkOpenProxiedStream measures what a proxy holds for each open,
// idle stream, in process, one stream an op (run it with -benchtime
// 1000x): the bare httputil.ReverseProxy and Switchyard, each between
// HTTP/1.1 clients and the fake OpenAI upstream, over HTTPS with HTTP/2
// (as the providers are reached; the certificate trusted through
// SSL_CERT_FILE) and over plain HTTP/1.1. The clients and the upstream
// live in this process too and cost the same through either proxy, so
// the difference between the two rows of a protocol is what Switchyard
// adds to an open stream; go run ./bench -slow-streams measures whole
// processes' RSS. Figures are after six collections, as in
// BenchmarkOpenStream: goroutines, stack bytes and live heap bytes a
// stream.
func BenchmarkOpenProxiedStream(b *testing.B) {
	dir := b.TempDir()
	cert, key, err := writeCert(dir)
	if err != nil {
		b.Fatal(err)
	}
	// Read by crypto/x509 when the system roots are first loaded: by the
	// first TLS call of the process.
	os.Setenv("SSL_CERT_FILE", cert)
	fake := fakeopenai.Start(fakeopenai.Options{TokenDelay: time.Hour, Words: 2})
	defer fake.Close()
	for _, proto := range []struct{ name, cert, key string }{{"http2", cert, key}, {"http1", "", ""}} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		upURL, srv, err := serveUpstream(ln, fake.Handler(), proto.cert, proto.key)
		if err != nil {
			b.Fatal(err)
		}
		defer srv.Close()
		b.Run(proto.name+"/proxy", func(b *testing.B) {
			u, _ := url.Parse(upURL)
			base, stop := serveLocal(b, bareproxy.New(u))
			defer stop()
			benchProxiedStreams(b, base+"/v1", "test-upstream-key")
		})
		b.Run(proto.name+"/switchyard", func(b *testing.B) {
			base, key := startInProcess(b, upURL)
			benchProxiedStreams(b, base+"/v1", key)
		})
	}
}

// serveLocal serves h on a loopback port until stop.
func serveLocal(b *testing.B, h http.Handler) (base string, stop func()) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String(), func() { srv.Close() }
}

// startInProcess runs Switchyard as shipped (metering to SQLite) in this
// process, with OpenAI at upstream, and returns its base URL and an API
// key; it stops when b ends.
func startInProcess(b *testing.B, upstream string) (base, key string) {
	env := map[string]string{"OPENAI_BASE_URL": upstream, "OPENAI_API_KEY": "test-upstream-key",
		"SWITCHYARD_DATABASE_URL": filepath.Join(b.TempDir(), "gw.db"), "SWITCHYARD_LISTEN": "127.0.0.1:0"}
	cfg, err := config.Load("", func(k string) string { return env[k] })
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	a, err := app.New(ctx, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		b.Fatal(err)
	}
	addr, err := a.Listen()
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	b.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			b.Errorf("Run: %v", err)
		}
		a.Close()
	})
	acct, err := a.Store().CreateAccount(ctx, store.NewAccount{Email: "bench@example.com"})
	if err != nil {
		b.Fatal(err)
	}
	full := apikey.Generate()
	h, _ := apikey.Parse(full)
	if _, err := a.Store().CreateKey(ctx, store.NewKey{AccountID: acct.ID, Name: "bench", Hash: h.String(), Hint: apikey.Hint(full)}); err != nil {
		b.Fatal(err)
	}
	return "http://" + addr.String(), full
}

// benchProxiedStreams opens b.N streams through the proxy at base, one
// first, which warms it up, and reports what the rest hold once all have
// their first bytes; it closes them at the end.
func benchProxiedStreams(b *testing.B, base, key string) {
	tr := &http.Transport{MaxIdleConnsPerHost: b.N + 1, DisableCompression: true}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	body := `{"model":"gpt-5.4-mini","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"Say hello"}]}`
	release := make(chan struct{})
	var opened, done sync.WaitGroup
	errs := make(chan error, b.N+1)
	open := func() {
		defer done.Done()
		req, _ := http.NewRequest("POST", base+"/chat/completions", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			errs <- err
			opened.Done()
			return
		}
		defer resp.Body.Close()
		br := bufio.NewReader(resp.Body)
		line, err := br.ReadString('\n')
		opened.Done()
		if err == nil && (resp.StatusCode != http.StatusOK || !strings.HasPrefix(line, "data: ")) {
			rest, _ := io.ReadAll(br)
			err = fmt.Errorf("status %d: %s%s", resp.StatusCode, line, rest)
		}
		if err != nil {
			errs <- err
			return
		}
		<-release
	}
	opened.Add(1)
	done.Add(1)
	go open()
	opened.Wait()
	reader := parkedMem(b.N)
	before := settledMem()
	opened.Add(b.N)
	done.Add(b.N)
	for range b.N {
		go open()
	}
	opened.Wait()
	after := settledMem()
	close(release)
	tr.CloseIdleConnections()
	done.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	after.report(b, before, reader)
}
