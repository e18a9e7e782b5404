package alerts_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/textproto"
	"strings"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/alerts"
)

// TestDeliveryErrorClass checks that an owner sees a failed delivery's
// class and no network detail (issue 13: they saw resolved addresses,
// ports and resolver errors), while the operator's log keeps it.
func TestDeliveryErrorClass(t *testing.T) {
	closed := func(t *testing.T) string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		return "http://" + addr + "/hook"
	}
	stalled := func(t *testing.T) string {
		done := make(chan struct{})
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-done:
			}
		}))
		t.Cleanup(srv.Close)
		t.Cleanup(func() { close(done) })
		return srv.URL + "/hook"
	}
	untrustedTLS := func(t *testing.T) string {
		srv := httptest.NewUnstartedServer(http.NotFoundHandler())
		srv.Config.ErrorLog = log.New(io.Discard, "", 0)
		srv.StartTLS()
		t.Cleanup(srv.Close)
		return srv.URL + "/hook"
	}
	answering := func(code int) func(t *testing.T) string {
		return func(t *testing.T) string { return newReceiver(t, code).URL + "/hook" }
	}
	tests := []struct {
		name    string
		url     func(t *testing.T) string
		timeout time.Duration
		want    string
	}{
		{"connection refused", closed, time.Minute, "connection refused"},
		{"timeout", stalled, 100 * time.Millisecond, "timeout"},
		{"TLS error", untrustedTLS, time.Minute, "TLS error"},
		{"HTTP 500", answering(500), time.Minute, "HTTP 500"},
		{"HTTP 404", answering(404), time.Minute, "HTTP 404"},
		{"HTTP 302", answering(302), time.Minute, "HTTP 302 (redirects are not followed)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logged bytes.Buffer
			url := tt.url(t)
			rig := newWebhookRigLog(t, url, alerts.WebhookOptions{AllowedNetworks: loopback, Timeout: tt.timeout},
				slog.New(slog.NewTextHandler(&logged, nil)))
			rig.w.Poll(t.Context())
			if got := rig.st.only(t).LastError; got != tt.want {
				t.Errorf("LastError %q, want %q", got, tt.want)
			}
			if !strings.Contains(logged.String(), "webhook") {
				t.Errorf("the log lacks the error's detail:\n%s", logged.String())
			}
		})
	}
}

// TestErrorClass checks the classes of errors a test server cannot easily
// produce.
func TestErrorClass(t *testing.T) {
	refused := alerts.CheckAddress(false, nil, netip.MustParseAddr("10.1.2.3"))
	tests := []struct {
		err  error
		want string
	}{
		{fmt.Errorf("webhook to x: %w", &net.DNSError{Err: "no such host", Name: "internal.example", Server: "10.0.0.2:53", IsNotFound: true}), "host not found"},
		{fmt.Errorf("webhook to x: %w", refused), "address not allowed: webhooks reach only public addresses"},
		{fmt.Errorf("smtp mail.example.com: rcpt to: %w", &textproto.Error{Code: 550, Msg: "5.1.1 user unknown at 10.0.0.9"}), "SMTP 550"},
		{&net.OpError{Op: "dial", Net: "tcp", Err: &net.AddrError{Err: "odd", Addr: "10.0.0.1"}}, "delivery failed"},
		{errors.New("anything else, with 10.0.0.1 in it"), "delivery failed"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := alerts.ErrorClass(tt.err); got != tt.want {
				t.Errorf("ErrorClass(%v) = %q, want %q", tt.err, got, tt.want)
			}
		})
	}
}
