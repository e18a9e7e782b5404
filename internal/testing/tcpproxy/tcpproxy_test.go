package tcpproxy_test

import (
	"bufio"
	"net"
	"testing"

	"github.com/switchyard-gw/switchyard/internal/testing/tcpproxy"
)

// echo starts a loopback server that echoes lines, until the test ends.
func echo(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				s := bufio.NewScanner(c)
				for s.Scan() {
					c.Write(append(s.Bytes(), '\n'))
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// roundTrip reports whether a line sent on c comes back.
func roundTrip(c net.Conn) bool {
	if _, err := c.Write([]byte("ping\n")); err != nil {
		return false
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && line == "ping\n"
}

func TestProxy(t *testing.T) {
	p := tcpproxy.Start(t, echo(t))
	dial := func() net.Conn {
		c, err := net.Dial("tcp", p.Addr())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	c := dial()
	if !roundTrip(c) {
		t.Fatal("no echo through the proxy")
	}
	p.Cut()
	if roundTrip(c) {
		t.Error("a cut connection still echoes")
	}
	if !roundTrip(dial()) {
		t.Error("no echo on a new connection after Cut")
	}
	p.SetDown(true)
	if roundTrip(dial()) {
		t.Error("echo while down")
	}
	p.SetDown(false)
	if !roundTrip(dial()) {
		t.Error("no echo after coming back up")
	}
}
