package alerts

import (
	"fmt"
	"net/mail"
	"strings"
	"time"
)

// address parses a single email address and refuses anything that could
// smuggle extra headers or recipients (CR, LF, several addresses).
func address(s string) (*mail.Address, error) {
	if strings.ContainsAny(s, "\r\n") {
		return nil, fmt.Errorf("email address %q contains a line break", s)
	}
	a, err := mail.ParseAddress(s)
	if err != nil {
		return nil, fmt.Errorf("invalid email address %q: %w", s, err)
	}
	if strings.ContainsAny(a.Address, "\r\n<>,; \t") || strings.ContainsAny(a.Name, "\r\n") {
		return nil, fmt.Errorf("invalid email address %q", s)
	}
	return a, nil
}

// subject is the subject line of ev's email.
func subject(ev Event) string {
	return "Switchyard billing alert: " + ev.Threshold.Dollars() + " monthly threshold reached"
}

// message is one email, ready to be formatted.
type message struct {
	from, to  *mail.Address
	date      time.Time
	messageID string
	ev        Event
}

// bytes formats m with CRLF line endings. Every value that reaches a
// header was parsed by address or is generated here.
func (m message) bytes() []byte {
	var b strings.Builder
	header := func(k, v string) { b.WriteString(k + ": " + v + "\r\n") }
	header("From", m.from.String())
	header("To", m.to.String())
	header("Subject", subject(m.ev))
	header("Date", m.date.Format(time.RFC1123Z))
	header("Message-ID", m.messageID)
	header("MIME-Version", "1.0")
	header("Content-Type", "text/plain; charset=utf-8")
	header("Content-Transfer-Encoding", "8bit")
	b.WriteString("\r\n")
	for _, line := range bodyLines(m.ev) {
		b.WriteString(line + "\r\n")
	}
	return []byte(b.String())
}

func bodyLines(ev Event) []string {
	return []string{
		"Your Switchyard billing alert was triggered.",
		"",
		"Account:   " + oneLine(ev.AccountID),
		"Period:    " + oneLine(ev.Period) + " (calendar month, UTC)",
		"Threshold: " + ev.Threshold.Dollars(),
		"Spend:     " + ev.Spend.Dollars() + " when the alert fired",
		"",
		"This alert is sent once per threshold and month: it will not repeat",
		"for " + oneLine(ev.Period) + ", even as spending continues.",
		"",
		"Event ID: " + oneLine(ev.ID),
	}
}

// oneLine drops control characters, so that stored values cannot break
// the message's lines.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
}

// messageID returns a stable Message-ID for c, so that a retried delivery
// is recognisably the same message.
func messageID(c Claim, from *mail.Address) string {
	_, domain, _ := strings.Cut(from.Address, "@")
	if domain == "" {
		domain = "switchyard.invalid"
	}
	id := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.' {
			return r
		}
		return -1
	}, c.Event.ID+"."+c.Delivery.ID)
	return "<" + id + "@" + domain + ">"
}
