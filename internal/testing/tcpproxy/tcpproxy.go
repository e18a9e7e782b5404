// Package tcpproxy is a loopback TCP proxy for tests that make a server
// (a database, Redis) go away and come back: it can cut every open
// connection and refuse new ones. It is never part of the binary.
package tcpproxy

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
)

// Proxy forwards the connections made to Addr to a target.
type Proxy struct {
	ln     net.Listener
	target string
	down   atomic.Bool
	wg     sync.WaitGroup

	mu    sync.Mutex // guards conns
	conns map[net.Conn]struct{}
}

// Start returns a Proxy to target, on a loopback port, closed with
// every connection when the test ends.
func Start(t testing.TB, target string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	p.wg.Go(p.accept)
	t.Cleanup(func() {
		ln.Close()
		p.Cut()
		p.wg.Wait()
	})
	return p
}

// Addr returns the address to connect to instead of the target.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Cut closes every open connection; new ones are accepted unless down.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

// SetDown makes the target unreachable (cutting every connection and
// refusing new ones) or reachable again.
func (p *Proxy) SetDown(down bool) {
	p.down.Store(down)
	if down {
		p.Cut()
	}
}

func (p *Proxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		if p.down.Load() {
			c.Close()
			continue
		}
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.track(c, up)
		p.wg.Go(func() { io.Copy(up, c); up.Close() })
		p.wg.Go(func() { io.Copy(c, up); c.Close() })
	}
}

func (p *Proxy) track(cs ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range cs {
		p.conns[c] = struct{}{}
	}
}
