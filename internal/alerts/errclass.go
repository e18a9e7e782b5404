package alerts

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"syscall"
)

// classError gives err the class that owners see of it (see errorClass).
type classError struct {
	class string
	err   error
}

func (e *classError) Error() string { return e.err.Error() }
func (e *classError) Unwrap() error { return e.err }

// classed gives err a class for owners.
func classed(class string, err error) error { return &classError{class: class, err: err} }

// errorClass is what the account's owner is shown of a failed delivery
// (Delivery.LastError): a short class, such as "connection refused",
// "timeout", "TLS error" or "HTTP 500", and none of the detail that the
// operator's log keeps, such as the addresses a host resolved to, the
// resolver's or the SMTP server's words (issue 13).
func errorClass(err error) string {
	var (
		ce  *classError
		dns *net.DNSError
		te  *textproto.Error
	)
	switch {
	case errors.As(err, &ce):
		return ce.class
	case errors.Is(err, ErrAddressRefused):
		return "address not allowed: webhooks reach only public addresses"
	case errors.Is(err, context.DeadlineExceeded), isTimeout(err):
		return "timeout"
	case errors.As(err, &dns):
		return "host not found"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "host unreachable"
	case isTLS(err):
		return "TLS error"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection reset"
	case errors.As(err, &te):
		return fmt.Sprintf("SMTP %d", te.Code)
	}
	return "delivery failed"
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// isTLS reports whether err is a TLS handshake's or certificate's.
func isTLS(err error) bool {
	var (
		rh  tls.RecordHeaderError
		al  tls.AlertError
		cv  *tls.CertificateVerificationError
		ua  x509.UnknownAuthorityError
		he  x509.HostnameError
		inv x509.CertificateInvalidError
	)
	return errors.As(err, &rh) || errors.As(err, &al) || errors.As(err, &cv) ||
		errors.As(err, &ua) || errors.As(err, &he) || errors.As(err, &inv)
}
