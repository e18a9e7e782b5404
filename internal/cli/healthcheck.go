package cli

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/switchyard-gw/switchyard/internal/config"
)

// runHealthcheck asks a running server's /readyz (or --url) and succeeds
// when it answers 200. It is the health check of an image that has no
// shell and no curl (deploy/Dockerfile, deploy/compose.yaml): the server's
// own configuration tells where it listens.
func runHealthcheck(ctx context.Context, env Env, args []string) error {
	fs, cfgPath := newFlags(env, "healthcheck")
	target := fs.String("url", "", "`URL` to GET (default /readyz on server.listen, an unspecified host as loopback)")
	timeout := fs.Duration("timeout", 3*time.Second, "how long to wait for the answer")
	if err := parse(fs, args, 0); err != nil {
		return err
	}
	u := *target
	if u == "" {
		cfg, err := loadConfig(env, *cfgPath)
		if err != nil {
			return err
		}
		u = readyURL(cfg)
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return usageErr("--url: %v", err)
	}
	resp, err := probeClient().Do(req)
	if err != nil {
		return fmt.Errorf("not ready: %w", err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("not ready: GET %s answered %s", u, resp.Status)
	}
	fmt.Fprintf(env.Stdout, "ready: GET %s answered %s\n", u, resp.Status)
	return nil
}

// readyURL is the /readyz URL of the server cfg configures, as seen from
// the same host: an unspecified listen host (0.0.0.0, ::, "") is reached
// on loopback.
func readyURL(cfg *config.Config) string {
	host, port, _ := net.SplitHostPort(cfg.Server.Listen) // validated by config.Load
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
		if ip != nil && ip.To4() == nil {
			host = "::1"
		}
	}
	scheme := "http"
	if cfg.TLS.Enabled() {
		scheme = "https"
	}
	return scheme + "://" + net.JoinHostPort(host, port) + "/readyz"
}

// probeClient is the health check's client. It does not verify the
// server's certificate: it asks the server on its own host for a status
// and sends nothing secret, while a certificate rarely names loopback.
func probeClient() *http.Client {
	tr := &http.Transport{
		Proxy:           nil,
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // see the doc comment
	}
	return &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}
}
