package alerts

import (
	"context"
	"errors"
)

// Sender sends one claimed delivery over its channel. An error matching
// ErrPermanent (errors.Is) fails the delivery at once; any other error is
// retried with backoff.
type Sender interface {
	Send(ctx context.Context, c Claim) error
}

// ErrPermanent is matched by delivery errors that no retry can fix: a
// webhook's 4xx answer, a refused address, an invalid email address.
var ErrPermanent = errors.New("permanent delivery failure")

// errSMTPNotConfigured fails email deliveries when no SMTP server is set.
var errSMTPNotConfigured = permanent(classed("SMTP is not configured", errors.New("SMTP is not configured")))

// permanentError marks err as permanent without changing its message.
type permanentError struct{ err error }

func (e *permanentError) Error() string        { return e.err.Error() }
func (e *permanentError) Unwrap() error        { return e.err }
func (e *permanentError) Is(target error) bool { return target == ErrPermanent }

// permanent wraps err so that it matches ErrPermanent.
func permanent(err error) error { return &permanentError{err: err} }
