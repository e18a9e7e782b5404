package provider

import (
	"context"
	"errors"
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"
)

// fullListener returns the address of a loopback listener whose accept
// queue is full: Linux drops further SYNs, so a dial to it waits for its
// timeout as one to a host that does not answer would.
func fullListener(t *testing.T) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 0); err != nil { // room for one connection
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	addr := (&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: sa.(*syscall.SockaddrInet4).Port}).String()
	for range 2 { // fill the queue; the second may already wait
		d := net.Dialer{Timeout: 200 * time.Millisecond}
		if c, err := d.Dial("tcp", addr); err == nil {
			t.Cleanup(func() { c.Close() })
		}
	}
	d := net.Dialer{Timeout: 200 * time.Millisecond}
	if c, err := d.Dial("tcp", addr); err == nil {
		c.Close()
		t.Skip("this kernel completes connections past a full accept queue; cannot test a dial that is not answered")
	}
	return addr
}

// Issue 15: the connect timeout bounds a dial to a host that does not
// answer, whatever the call's own timeout.
func TestConnectTimeout(t *testing.T) {
	addr := fullListener(t)
	u := &Upstream{Name: "up", Client: &http.Client{Transport: NewTransport(100 * time.Millisecond)},
		Header: http.Header{}, Timeout: time.Hour}
	// The test's own bound, far past the connect timeout and short of the
	// default one (10s): the call must fail before it.
	ctx, stop := context.WithTimeout(context.Background(), 5*time.Second)
	defer stop()
	_, _, err := u.Call(ctx, "http://"+addr+"/v1/chat/completions", []byte("{}"), "")
	var pe *Error
	var oe *net.OpError
	if !errors.As(err, &pe) || pe.Kind != KindTimeout || !errors.As(err, &oe) || oe.Op != "dial" {
		t.Fatalf("Call: %v, want a KindTimeout error from the dial", err)
	}
	if ctx.Err() != nil {
		t.Fatalf("the call ended with the test's bound, not the connect timeout: %v", err)
	}
}
