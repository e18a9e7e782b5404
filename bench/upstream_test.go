package main

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/switchyard-gw/switchyard/internal/provider"
	fakeopenai "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/openai"
)

// TestWriteCert: the certificate written for the TLS upstream is valid
// for 127.0.0.1 to a client that trusts only it, as SSL_CERT_FILE makes
// the proxies do.
func TestWriteCert(t *testing.T) {
	certFile, keyFile, err := writeCert(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tls.LoadX509KeyPair(certFile, keyFile); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(certFile)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(b)
	if block == nil {
		t.Fatalf("%s holds no PEM block", certFile)
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(cert)
	if _, err := cert.Verify(x509.VerifyOptions{Roots: roots, DNSName: "127.0.0.1"}); err != nil {
		t.Errorf("verify for 127.0.0.1: %v", err)
	}
	if _, err := cert.Verify(x509.VerifyOptions{Roots: roots, DNSName: "localhost"}); err == nil {
		t.Errorf("valid for localhost too, want 127.0.0.1 only")
	}
}

// TestServeUpstream: over TLS the upstream answers the gateway's
// transport (provider.NewTransport, trusting the certificate) over HTTP/2,
// in plain HTTP over HTTP/1.1, and its stats count the requests by
// protocol and the connections that carried them, not the stats
// requests themselves.
func TestServeUpstream(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile, err := writeCert(dir)
	if err != nil {
		t.Fatal(err)
	}
	fake := fakeopenai.Start(fakeopenai.Options{Words: 3})
	defer fake.Close()
	for _, tt := range []struct {
		name, cert, key string
		want            upstreamStats
		wantProto       int
	}{
		{"plain", "", "", upstreamStats{HTTP1: 2, Conns: 1}, 1},
		{"tls", certFile, keyFile, upstreamStats{HTTP2: 2, Conns: 1}, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			url, srv, err := serveUpstream(ln, fake.Handler(), tt.cert, tt.key)
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			up, err := newUpstream(url, tt.cert)
			if err != nil {
				t.Fatal(err)
			}
			if tt.cert != "" && (len(up.env) != 1 || up.env[0] != "SSL_CERT_FILE="+tt.cert) {
				t.Errorf("env %q, want SSL_CERT_FILE=%s", up.env, tt.cert)
			}
			before, err := up.stats()
			if err != nil {
				t.Fatal(err)
			}
			tr := provider.NewTransport(0)
			defer tr.CloseIdleConnections()
			if tt.cert != "" {
				tr.TLSClientConfig = &tls.Config{RootCAs: up.client.Transport.(*http.Transport).TLSClientConfig.RootCAs}
			}
			for range 2 {
				req, _ := http.NewRequest("POST", url+"/chat/completions",
					strings.NewReader(`{"model":"gpt-5.4-mini","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
				req.Header.Set("Authorization", "Bearer test-upstream-key")
				req.Header.Set("Content-Type", "application/json")
				resp, err := tr.RoundTrip(req)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK || resp.ProtoMajor != tt.wantProto || !strings.HasSuffix(string(b), "data: [DONE]\n\n") {
					t.Fatalf("%s %d, want HTTP/%d.x 200 and a whole stream; the answer ends %q", resp.Proto, resp.StatusCode, tt.wantProto, b[max(0, len(b)-60):])
				}
			}
			after, err := up.stats()
			if err != nil {
				t.Fatal(err)
			}
			if got := after.sub(before); got != tt.want {
				t.Errorf("stats %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestUpstreamStatsString(t *testing.T) {
	for _, tt := range []struct {
		s    upstreamStats
		want string
	}{
		{upstreamStats{HTTP2: 10001, Conns: 41}, "HTTP/2: 10001 requests, 41 connections"},
		{upstreamStats{HTTP1: 3, Conns: 1}, "HTTP/1.1: 3 requests, 1 connection"},
		{upstreamStats{HTTP1: 1, HTTP2: 2, Conns: 2}, "HTTP/1.1 and HTTP/2: 1 and 2 requests, 2 connections"},
	} {
		if got := tt.s.String(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.s, got, tt.want)
		}
	}
}
