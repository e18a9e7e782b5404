// Package server runs Switchyard's HTTP listener: timeouts, TLS, the shared
// middleware and graceful shutdown.
package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"

	"github.com/switchyard-gw/switchyard/internal/config"
)

// Server is an HTTP server bound to one address.
type Server struct {
	cfg config.Server
	tls config.TLS
	log *slog.Logger
	srv *http.Server
	ln  net.Listener
	// active counts the handlers running; ctx is their contexts' parent,
	// cancelled with ErrShutdown when the grace period is over.
	active inflight
	ctx    context.Context
	cancel context.CancelCauseFunc
	// obs is told of every request (Observe); nil: none.
	obs Observer
}

// New returns a server for h with the shared middleware around it. The
// extra middleware (Trace, say) runs inside the access log, around the
// rest: it sees each request's access record and its status.
func New(cfg config.Server, tlsCfg config.TLS, h http.Handler, log *slog.Logger, extra ...Middleware) *Server {
	s := &Server{cfg: cfg, tls: tlsCfg, log: log}
	g := &guarded{log: log, hsts: tlsCfg.Enabled(), origins: cfg.CORSOrigins, max: cfg.MaxBodyBytes, next: h}
	front := &logged{active: &s.active, log: log, obs: &s.obs, next: Chain(g, extra...)}
	s.ctx, s.cancel = context.WithCancelCause(context.Background())
	s.srv = &http.Server{
		Handler:           front,
		BaseContext:       func(net.Listener) context.Context { return s.ctx },
		ReadHeaderTimeout: cfg.ReadHeaderTimeout,
		ReadTimeout:       cfg.ReadTimeout,
		IdleTimeout:       cfg.IdleTimeout,
		MaxHeaderBytes:    1 << 20,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	return s
}

// Listen binds the configured address and returns it (useful with ":0").
func (s *Server) Listen() (net.Addr, error) {
	ln, err := net.Listen("tcp", s.cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", s.cfg.Listen, err)
	}
	if s.tls.Enabled() {
		cert, err := tls.LoadX509KeyPair(s.tls.CertFile, s.tls.KeyFile)
		if err != nil {
			ln.Close()
			return nil, fmt.Errorf("tls: %w", err)
		}
		ln = tls.NewListener(ln, &tls.Config{
			Certificates: []tls.Certificate{cert},
			MinVersion:   tls.VersionTLS12,
			NextProtos:   []string{"h2", "http/1.1"},
		})
	} else if !isLoopback(ln.Addr()) {
		s.log.Warn("serving plaintext HTTP on a non-loopback address: API keys travel unencrypted; set tls.cert_file and tls.key_file or put a TLS proxy in front",
			"addr", ln.Addr().String())
	}
	s.ln = ln
	return ln.Addr(), nil
}

// Serve serves until ctx ends, then stops accepting and lets in-flight
// requests and streams finish for up to the shutdown grace period before
// cutting them (see cut). It returns once the handlers have returned, so
// that what they record is recorded before the caller stops the meter.
// Listen must have been called.
func (s *Server) Serve(ctx context.Context) error {
	errc := make(chan error, 1)
	go func() { errc <- s.srv.Serve(s.ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	s.log.Info("shutting down", "grace", s.cfg.ShutdownGrace.String())
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.ShutdownGrace)
	defer cancel()
	err := s.srv.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = s.cut()
	}
	if serveErr := <-errc; !errors.Is(serveErr, http.ErrServerClosed) && err == nil {
		err = serveErr
	}
	return err
}

func isLoopback(a net.Addr) bool {
	tcp, ok := a.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}

// Handler returns the handler with the shared middleware around it.
func (s *Server) Handler() http.Handler { return s.srv.Handler }

// Observe makes obs be told of every request the server serves, with its
// access log record. Call it before Serve.
func (s *Server) Observe(obs Observer) { s.obs = obs }

// InFlight returns the number of requests being served.
func (s *Server) InFlight() int64 { return s.active.n.Load() }
