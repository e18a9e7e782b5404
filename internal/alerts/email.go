package alerts

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/smtp"
	"net/textproto"
	"strconv"
	"time"
)

// SMTPConfig is the SMTP server that sends alert emails.
type SMTPConfig struct {
	// Host is the server's name; "" disables email, and email deliveries
	// then fail with "SMTP is not configured".
	Host string
	// Port defaults to 465 when TLS is "tls", 587 otherwise.
	Port int
	// Username and Password, when Username is set, authenticate with
	// PLAIN, which net/smtp sends only over TLS (or to localhost).
	Username, Password string
	// From is the sender, "alerts@example.com" or
	// "Switchyard <alerts@example.com>". Required with Host.
	From string
	// TLS is "starttls" (default: STARTTLS when the server offers it,
	// required when Username is set), "tls" (implicit TLS) or "none".
	TLS string
}

// MailerOptions configure a Mailer. Zero values take the defaults.
type MailerOptions struct {
	// DialTimeout bounds connecting. Default 10s.
	DialTimeout time.Duration
	// Timeout bounds one whole send, from dial to QUIT. Default 30s.
	Timeout time.Duration
	// TLSConfig is used for "tls" and "starttls"; its ServerName defaults
	// to Host. Default: system roots, TLS 1.2 or later.
	TLSConfig *tls.Config
	// Now dates messages. Default time.Now.
	Now func() time.Time
}

// Mailer sends deliveries as plain-text emails over SMTP.
type Mailer struct {
	cfg SMTPConfig
	opt MailerOptions
}

var _ Sender = (*Mailer)(nil)

// NewMailer returns a Mailer for cfg.
func NewMailer(cfg SMTPConfig, opts MailerOptions) *Mailer {
	if cfg.TLS == "" {
		cfg.TLS = "starttls"
	}
	if cfg.Port == 0 {
		cfg.Port = 587
		if cfg.TLS == "tls" {
			cfg.Port = 465
		}
	}
	setDefault(&opts.DialTimeout, 10*time.Second)
	setDefault(&opts.Timeout, 30*time.Second)
	if opts.Now == nil {
		opts.Now = time.Now
	}
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	if opts.TLSConfig != nil {
		tc = opts.TLSConfig.Clone()
	}
	if tc.ServerName == "" {
		tc.ServerName = cfg.Host
	}
	opts.TLSConfig = tc
	return &Mailer{cfg: cfg, opt: opts}
}

// Send emails c's event to c.Delivery.Target. Configuration problems, an
// invalid address and 5xx (permanent) SMTP replies fail at once.
func (m *Mailer) Send(ctx context.Context, c Claim) error {
	msg, err := m.compose(c)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, m.opt.Timeout)
	defer cancel()
	if err := m.send(ctx, msg); err != nil {
		var te *textproto.Error
		if errors.As(err, &te) && te.Code >= 500 {
			return permanent(fmt.Errorf("smtp %s: %w", m.cfg.Host, err))
		}
		return fmt.Errorf("smtp %s: %w", m.cfg.Host, err)
	}
	return nil
}

// compose checks the configuration and addresses and builds the message.
func (m *Mailer) compose(c Claim) (message, error) {
	if m.cfg.Host == "" {
		return message{}, errSMTPNotConfigured
	}
	switch m.cfg.TLS {
	case "starttls", "tls", "none":
	default:
		return message{}, permanent(fmt.Errorf("SMTP TLS mode %q is not starttls, tls or none", m.cfg.TLS))
	}
	from, err := address(m.cfg.From)
	if err != nil {
		return message{}, permanent(fmt.Errorf("SMTP from: %w", err))
	}
	to, err := address(c.Delivery.Target)
	if err != nil {
		return message{}, permanent(classed("invalid email address", err))
	}
	return message{from: from, to: to, date: m.opt.Now(), messageID: messageID(c, from), ev: c.Event}, nil
}

// send runs one SMTP session; ctx's deadline bounds every read and write,
// and its end closes the connection.
func (m *Mailer) send(ctx context.Context, msg message) error {
	conn, err := m.dial(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	if d, ok := ctx.Deadline(); ok {
		conn.SetDeadline(d)
	}
	cl, err := smtp.NewClient(conn, m.cfg.Host)
	if err != nil {
		return err
	}
	defer cl.Close()
	if err := m.secure(cl); err != nil {
		return err
	}
	if err := m.transfer(cl, msg); err != nil {
		return err
	}
	cl.Quit() // the server has accepted the message: a failed QUIT must not resend it
	return nil
}

func (m *Mailer) dial(ctx context.Context) (net.Conn, error) {
	addr := net.JoinHostPort(m.cfg.Host, strconv.Itoa(m.cfg.Port))
	nd := &net.Dialer{Timeout: m.opt.DialTimeout}
	if m.cfg.TLS == "tls" {
		td := &tls.Dialer{NetDialer: nd, Config: m.opt.TLSConfig}
		return td.DialContext(ctx, "tcp", addr)
	}
	return nd.DialContext(ctx, "tcp", addr)
}

// secure upgrades to TLS when asked to and authenticates.
func (m *Mailer) secure(cl *smtp.Client) error {
	if m.cfg.TLS == "starttls" {
		if ok, _ := cl.Extension("STARTTLS"); ok {
			if err := cl.StartTLS(m.opt.TLSConfig); err != nil {
				return fmt.Errorf("starttls: %w", err)
			}
		} else if m.cfg.Username != "" {
			return classed("SMTP server offers no STARTTLS", errors.New("server does not offer STARTTLS, which authentication requires"))
		}
	}
	if m.cfg.Username == "" {
		return nil
	}
	auth := smtp.PlainAuth("", m.cfg.Username, m.cfg.Password, m.cfg.Host)
	if err := cl.Auth(auth); err != nil {
		return fmt.Errorf("auth: %w", err)
	}
	return nil
}

// transfer sends the envelope and the message.
func (m *Mailer) transfer(cl *smtp.Client, msg message) error {
	if err := cl.Mail(msg.from.Address); err != nil {
		return fmt.Errorf("mail from: %w", err)
	}
	if err := cl.Rcpt(msg.to.Address); err != nil {
		return fmt.Errorf("rcpt to: %w", err)
	}
	w, err := cl.Data()
	if err != nil {
		return fmt.Errorf("data: %w", err)
	}
	if _, err := w.Write(msg.bytes()); err != nil {
		return fmt.Errorf("data: %w", err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("data: %w", err)
	}
	return nil
}
