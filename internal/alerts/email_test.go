package alerts_test

import (
	"bytes"
	"io"
	"net"
	"net/mail"
	"strings"
	"sync"
	"testing"

	"github.com/emersion/go-smtp"

	"github.com/switchyard-gw/switchyard/internal/alerts"
)

// smtpReceiver is an SMTP server on 127.0.0.1 that keeps every message, or
// refuses recipients with rcptErr.
type smtpReceiver struct {
	addr    *net.TCPAddr
	rcptErr error

	mu   sync.Mutex
	msgs []smtpMessage
}

type smtpMessage struct {
	from string
	to   []string
	data []byte
}

func newSMTPReceiver(t *testing.T, rcptErr error) *smtpReceiver {
	rc := &smtpReceiver{rcptErr: rcptErr}
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) {
		return &smtpSession{rc: rc}, nil
	}))
	srv.Domain = "localhost"
	srv.ErrorLog = discardLogger{}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rc.addr = l.Addr().(*net.TCPAddr)
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Serve(l)
	}()
	t.Cleanup(func() {
		// Close the listener too: go-smtp's Close misses one that Serve
		// has not registered yet, and Serve would then accept forever.
		srv.Close()
		l.Close()
		<-done
	})
	return rc
}

func (rc *smtpReceiver) messages() []smtpMessage {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]smtpMessage(nil), rc.msgs...)
}

func (rc *smtpReceiver) config() alerts.SMTPConfig {
	return alerts.SMTPConfig{Host: "127.0.0.1", Port: rc.addr.Port, From: "Switchyard <alerts@switchyard.test>", TLS: "none"}
}

type discardLogger struct{}

func (discardLogger) Printf(string, ...any) {}
func (discardLogger) Println(...any)        {}

type smtpSession struct {
	rc  *smtpReceiver
	msg smtpMessage
}

func (s *smtpSession) Reset()        { s.msg = smtpMessage{} }
func (s *smtpSession) Logout() error { return nil }

func (s *smtpSession) Mail(from string, _ *smtp.MailOptions) error {
	s.msg.from = from
	return nil
}

func (s *smtpSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	if s.rc.rcptErr != nil {
		return s.rc.rcptErr
	}
	s.msg.to = append(s.msg.to, to)
	return nil
}

func (s *smtpSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.msg.data = b
	s.rc.mu.Lock()
	s.rc.msgs = append(s.rc.msgs, s.msg)
	s.rc.mu.Unlock()
	return nil
}

// emailStore is a store with one fired email alert to target.
func emailStore(t *testing.T, target string) (*fakeStore, *clock) {
	st, clk := newFakeStore(), newClock()
	rule := alerts.Rule{ID: "rule_a", AccountID: "acct_1", Threshold: dollars(50), Email: target}
	st.addRule(rule)
	ev := alerts.Event{ID: "alev_mail1", RuleID: "rule_a", AccountID: "acct_1", Period: "2026-11",
		Threshold: dollars(50), Spend: dollars(50) + 12*usdCents(1), CreatedAt: clk.Now()}
	if _, err := st.FireAlert(t.Context(), rule, ev); err != nil {
		t.Fatal(err)
	}
	return st, clk
}

// emailRig is emailStore with a worker sending through cfg.
func emailRig(t *testing.T, cfg alerts.SMTPConfig, target string) (*fakeStore, *alerts.Worker) {
	st, clk := emailStore(t, target)
	m := alerts.NewMailer(cfg, alerts.MailerOptions{Now: clk.Now})
	return st, alerts.NewWorker(st, alerts.WorkerOptions{Email: m, Now: clk.Now, Log: quiet})
}

func TestMailerSends(t *testing.T) {
	rc := newSMTPReceiver(t, nil)
	st, w := emailRig(t, rc.config(), "Ada Lovelace <ada@example.com>")
	w.Poll(t.Context())
	w.Poll(t.Context())

	if d := st.only(t); d.Status != alerts.StatusDelivered || d.Attempts != 1 {
		t.Errorf("delivery %+v", d)
	}
	msgs := rc.messages()
	if len(msgs) != 1 {
		t.Fatalf("%d messages, want 1", len(msgs))
	}
	m := msgs[0]
	if m.from != "alerts@switchyard.test" || len(m.to) != 1 || m.to[0] != "ada@example.com" {
		t.Errorf("envelope from %q to %q", m.from, m.to)
	}
	if bytes.Contains(bytes.ReplaceAll(m.data, []byte("\r\n"), nil), []byte("\n")) {
		t.Errorf("message has bare LF line endings:\n%q", m.data)
	}
	parsed, err := mail.ReadMessage(bytes.NewReader(m.data))
	if err != nil {
		t.Fatal(err)
	}
	h := parsed.Header
	for k, want := range map[string]string{
		"To":           `"Ada Lovelace" <ada@example.com>`,
		"From":         `"Switchyard" <alerts@switchyard.test>`,
		"Subject":      "Switchyard billing alert: $50.00 monthly threshold reached",
		"Date":         "Sat, 14 Nov 2026 09:30:00 +0000",
		"Message-ID":   "<alev_mail1.dlv_1@switchyard.test>",
		"MIME-Version": "1.0",
		"Content-Type": "text/plain; charset=utf-8",
	} {
		if got := h.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	body, _ := io.ReadAll(parsed.Body)
	for _, want := range []string{"acct_1", "2026-11", "$50.00", "$50.12", "will not repeat"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("body lacks %q:\n%s", want, body)
		}
	}
}

func TestMailerRefusesBadAddresses(t *testing.T) {
	rc := newSMTPReceiver(t, nil)
	for _, to := range []string{
		"ada@example.com\r\nBcc: eve@example.com",
		"ada@example.com\nBcc: eve@example.com",
		"ada@example.com, eve@example.com",
		"not an address",
		"ada@",
	} {
		st, w := emailRig(t, rc.config(), to)
		w.Poll(t.Context())
		if d := st.only(t); d.Status != alerts.StatusFailed || d.Attempts != 1 {
			t.Errorf("%q: delivery %+v, want failed at once", to, d)
		}
	}
	if got := len(rc.messages()); got != 0 {
		t.Errorf("%d messages sent, want 0", got)
	}
}

func TestMailerSMTPReplies(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"550 is permanent", &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "no such user"}, alerts.StatusFailed},
		{"451 is retried", &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "try later"}, alerts.StatusPending},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc := newSMTPReceiver(t, tt.err)
			st, w := emailRig(t, rc.config(), "ada@example.com")
			w.Poll(t.Context())
			if d := st.only(t); d.Status != tt.want || d.Attempts != 1 {
				t.Errorf("delivery %+v, want %s", d, tt.want)
			}
		})
	}
}

func TestEmailNotConfigured(t *testing.T) {
	tests := map[string]alerts.Sender{
		"no mailer": nil,
		"no host":   alerts.NewMailer(alerts.SMTPConfig{From: "alerts@switchyard.test"}, alerts.MailerOptions{}),
	}
	for name, sender := range tests {
		st, _ := emailStore(t, "ada@example.com")
		w := alerts.NewWorker(st, alerts.WorkerOptions{Email: sender, Log: quiet})
		w.Poll(t.Context())
		if d := st.only(t); d.Status != alerts.StatusFailed || d.Attempts != 1 || d.LastError != "SMTP is not configured" {
			t.Errorf("%s: delivery %+v", name, d)
		}
	}
}

// TestMailerSTARTTLS: in the default mode a server without STARTTLS gets
// the message in the clear, but never credentials.
func TestMailerSTARTTLS(t *testing.T) {
	rc := newSMTPReceiver(t, nil)
	cfg := rc.config()
	cfg.TLS = ""
	st, w := emailRig(t, cfg, "ada@example.com")
	w.Poll(t.Context())
	if d := st.only(t); d.Status != alerts.StatusDelivered {
		t.Errorf("without credentials: delivery %+v, want delivered", d)
	}

	cfg.Username, cfg.Password = "user", "pass"
	st, w = emailRig(t, cfg, "ada@example.com")
	w.Poll(t.Context())
	if d := st.only(t); d.Status != alerts.StatusPending || !strings.Contains(d.LastError, "STARTTLS") {
		t.Errorf("with credentials: delivery %+v, want a retry for lack of STARTTLS", d)
	}
	if got := len(rc.messages()); got != 1 {
		t.Errorf("%d messages, want 1", got)
	}
}
