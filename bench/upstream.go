package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	fakeopenai "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/openai"
)

// statsPath is where the upstream process answers with its upstreamStats,
// outside the fake's /v1.
const statsPath = "/bench/stats"

// upstreamStats is what the upstream process has seen: requests by
// protocol and connections accepted, so that the bench reports how each
// proxy reached it rather than assuming it.
type upstreamStats struct {
	HTTP1, HTTP2, Conns int64
}

// sub is s less an earlier count.
func (s upstreamStats) sub(before upstreamStats) upstreamStats {
	return upstreamStats{s.HTTP1 - before.HTTP1, s.HTTP2 - before.HTTP2, s.Conns - before.Conns}
}

// String is the table's account, e.g. "HTTP/2: 10001 requests, 41 connections".
func (s upstreamStats) String() string {
	proto := "HTTP/1.1"
	n := s.HTTP1
	switch {
	case s.HTTP1 > 0 && s.HTTP2 > 0:
		return fmt.Sprintf("HTTP/1.1 and HTTP/2: %d and %d requests, %d connections", s.HTTP1, s.HTTP2, s.Conns)
	case s.HTTP2 > 0:
		proto, n = "HTTP/2", s.HTTP2
	}
	return fmt.Sprintf("%s: %d requests, %d %s", proto, n, s.Conns, map[bool]string{false: "connections", true: "connection"}[s.Conns == 1])
}

// upstreamCounter counts an upstream server's requests by protocol, and
// the connections that carried any (not those of the stats requests).
type upstreamCounter struct {
	http1, http2, conns atomic.Int64
}

// connUsed is the context key of a connection's "carried a request" flag.
type connUsed struct{}

// connContext gives each connection its flag, for http.Server.ConnContext.
func (c *upstreamCounter) connContext(ctx context.Context, _ net.Conn) context.Context {
	return context.WithValue(ctx, connUsed{}, new(atomic.Bool))
}

// wrap counts each request by protocol, and its connection the first
// time, before h answers it, and answers statsPath itself.
func (c *upstreamCounter) wrap(h http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+statsPath, func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(upstreamStats{c.http1.Load(), c.http2.Load(), c.conns.Load()})
	})
	mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor == 2 {
			c.http2.Add(1)
		} else {
			c.http1.Add(1)
		}
		if used, ok := r.Context().Value(connUsed{}).(*atomic.Bool); ok && !used.Swap(true) {
			c.conns.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	return mux
}

// runUpstream is the fake OpenAI upstream as a process of its own:
// bench upstream DELAY WORDS [CERT KEY]. It prints its base URL (with /v1)
// and exits when its stdin closes.
func runUpstream(args []string) {
	d, err := time.ParseDuration(args[0])
	if err != nil {
		panic(err)
	}
	w, err := strconv.Atoi(args[1])
	if err != nil {
		panic(err)
	}
	var certFile, keyFile string
	if len(args) >= 4 {
		certFile, keyFile = args[2], args[3]
	}
	fake := fakeopenai.Start(fakeopenai.Options{TokenDelay: d, Words: w})
	defer fake.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	url, srv, err := serveUpstream(ln, fake.Handler(), certFile, keyFile)
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	fmt.Println(url)
	io.Copy(io.Discard, os.Stdin) // exits when stdin closes
}

// serveUpstream serves h on ln, counting its requests and answering
// statsPath, and returns the base URL (with /v1). With a certificate and
// key it serves HTTPS, offering HTTP/2 and HTTP/1.1, else plain HTTP/1.1.
func serveUpstream(ln net.Listener, h http.Handler, certFile, keyFile string) (string, *http.Server, error) {
	c := new(upstreamCounter)
	srv := &http.Server{Handler: c.wrap(h), ConnContext: c.connContext,
		ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute}
	if certFile == "" {
		go srv.Serve(ln)
		return "http://" + ln.Addr().String() + "/v1", srv, nil
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return "", nil, err
	}
	// ServeTLS adds "h2" to the protocols offered.
	srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}}
	go srv.ServeTLS(ln, "", "")
	return "https://" + ln.Addr().String() + "/v1", srv, nil
}

// writeCert writes a self-signed ECDSA certificate for 127.0.0.1, valid
// for a day, and its key as PEM files cert.pem and key.pem in dir. The
// certificate is its own authority: a process given it as SSL_CERT_FILE
// (crypto/x509 reads it on Linux and the BSDs) trusts the upstream and
// nothing else.
func writeCert(dir string) (certFile, keyFile string, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", "", err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(now.UnixNano()),
		Subject:               pkix.Name{CommonName: "switchyard bench upstream"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return "", "", err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return "", "", err
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		return "", "", err
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		return "", "", err
	}
	return certFile, keyFile, nil
}

// startUpstream starts the fake upstream in a process of its own, so that
// this one holds only the client side of the streams: over HTTPS with a
// certificate written into dir when tls is set, else plain HTTP.
func startUpstream(self, dir string, delay time.Duration, words int, tls bool) (upstream, *exec.Cmd, error) {
	args := []string{"upstream", delay.String(), strconv.Itoa(words)}
	certFile := ""
	if tls {
		cert, key, err := writeCert(dir)
		if err != nil {
			return upstream{}, nil, err
		}
		args, certFile = append(args, cert, key), cert
	}
	cmd, url, err := startChild(self, nil, args...)
	if err != nil {
		return upstream{}, nil, err
	}
	up, err := newUpstream(url, certFile)
	if err != nil {
		stop(cmd)
		return upstream{}, nil, err
	}
	return up, cmd, nil
}

// upstream is the running upstream process, as the bench sees it.
type upstream struct {
	url string // base URL with /v1
	// env is what a process reaching it needs in its environment:
	// SSL_CERT_FILE with the certificate over TLS, else nothing.
	env    []string
	client *http.Client // trusts the certificate
	root   string       // scheme and host, for statsPath
}

// newUpstream describes the upstream at url, served with the certificate
// in certFile ("" for plain HTTP).
func newUpstream(url, certFile string) (upstream, error) {
	u := upstream{url: url, client: &http.Client{Timeout: 10 * time.Second}}
	root, ok := strings.CutSuffix(url, "/v1")
	if !ok {
		return u, fmt.Errorf("upstream URL %q does not end in /v1", url)
	}
	u.root = root
	if certFile == "" {
		return u, nil
	}
	pemBytes, err := os.ReadFile(certFile)
	if err != nil {
		return u, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pemBytes) {
		return u, fmt.Errorf("no certificate in %s", certFile)
	}
	u.env = []string{"SSL_CERT_FILE=" + certFile}
	u.client.Transport = &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
	return u, nil
}

// stats asks the upstream what it has seen so far.
func (u upstream) stats() (upstreamStats, error) {
	var s upstreamStats
	resp, err := u.client.Get(u.root + statsPath)
	if err != nil {
		return s, fmt.Errorf("upstream stats: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return s, fmt.Errorf("upstream stats: status %d", resp.StatusCode)
	}
	return s, json.NewDecoder(resp.Body).Decode(&s)
}
