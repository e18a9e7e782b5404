// Package config holds Switchyard's configuration: defaults, YAML file and
// environment loading, and validation.
package config

import (
	"fmt"
	"net"
	"net/mail"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Config is the whole configuration of one Switchyard process. Every field
// documents its default; docs/configuration.md lists them for operators.
type Config struct {
	Server   Server   `yaml:"server"`
	TLS      TLS      `yaml:"tls"`
	Database Database `yaml:"database"`
	Redis    Redis    `yaml:"redis"`
	Auth     Auth     `yaml:"auth"`
	Log      Log      `yaml:"log"`
	Models   Models   `yaml:"models"`
	Routing  Routing  `yaml:"routing"`
	Metering Metering `yaml:"metering"`
	Limits   Limits   `yaml:"limits"`
	Alerts   Alerts   `yaml:"alerts"`
	// Dashboard is the account owners' web interface.
	Dashboard Dashboard `yaml:"dashboard"`
	// Responses configures the answers of the Responses API the gateway
	// keeps (store:true).
	Responses Responses `yaml:"responses"`
	// Tracing exports OpenTelemetry traces; off by default.
	Tracing Tracing `yaml:"tracing"`
	// Metrics configures the Prometheus metrics endpoint.
	Metrics Metrics `yaml:"metrics"`
	// Providers lists the upstreams. Providers whose *_API_KEY or
	// *_BASE_URL environment variable is set are added too. Default none.
	Providers []Provider `yaml:"providers"`

	// Dev is set by `serve --dev`: it creates a dev account and key and
	// enables the mock provider. It has no file key.
	Dev bool `yaml:"-"`
	// Now is the clock that decides model lifecycles (retired, under
	// notice). Nil means time.Now; tests pin it. It has no file key.
	Now func() time.Time `yaml:"-"`
	// Version is the build's version, set by the CLI for the metrics'
	// build info. It has no file key.
	Version string `yaml:"-"`
}

// Server configures the HTTP listener.
type Server struct {
	// Listen is the address to listen on. Default "127.0.0.1:8080".
	Listen string `yaml:"listen"`
	// ReadHeaderTimeout bounds reading request headers. Default 10s.
	ReadHeaderTimeout time.Duration `yaml:"read_header_timeout"`
	// ReadTimeout bounds reading a whole request, body included. It is
	// lifted once the body is read so long streams are not cut. Default 60s.
	ReadTimeout time.Duration `yaml:"read_timeout"`
	// IdleTimeout closes idle keep-alive connections. Default 120s.
	IdleTimeout time.Duration `yaml:"idle_timeout"`
	// ShutdownGrace is how long in-flight requests and streams may run
	// after SIGINT/SIGTERM before they are cut. Default 30s.
	ShutdownGrace time.Duration `yaml:"shutdown_grace"`
	// MaxBodyBytes is the largest accepted request body; larger bodies get
	// 413. Default 33554432 (32 MiB).
	MaxBodyBytes int64 `yaml:"max_body_bytes"`
	// MaxBodyBytesInFlight bounds the memory of all request bodies the
	// process holds at once; a request whose body would go past it gets
	// 503 with Retry-After: 1. Must exceed MaxBodyBytes. Default 268435456
	// (256 MiB).
	MaxBodyBytesInFlight int64 `yaml:"max_body_bytes_in_flight"`
	// CORSOrigins lists browser origins allowed to call the API. Default
	// empty: no CORS headers are sent (keys belong in server-side code).
	CORSOrigins []string `yaml:"cors_origins"`
}

// TLS enables HTTPS when both files are set. Default: plaintext.
type TLS struct {
	CertFile string `yaml:"cert_file"`
	KeyFile  string `yaml:"key_file"`
}

// Enabled reports whether TLS is configured.
func (t TLS) Enabled() bool { return t.CertFile != "" || t.KeyFile != "" }

// Database selects the store.
type Database struct {
	// URL is a SQLite file path (or file: URI) or a postgres:// URL.
	// Default "switchyard.db" in the working directory.
	URL string `yaml:"url"`
	// MaxOpenConns caps the connection pool. Default 16.
	MaxOpenConns int `yaml:"max_open_conns"`
}

// IsPostgres reports whether URL names a PostgreSQL database.
func (d Database) IsPostgres() bool {
	return strings.HasPrefix(d.URL, "postgres://") || strings.HasPrefix(d.URL, "postgresql://")
}

// SQLitePath returns the file of a SQLite URL (without "file:" and any
// query), or "" for PostgreSQL.
func (d Database) SQLitePath() string {
	if d.IsPostgres() {
		return ""
	}
	path := strings.TrimPrefix(d.URL, "file:")
	path, _, _ = strings.Cut(path, "?")
	return path
}

// Redis configures the shared counter store for several replicas.
type Redis struct {
	// URL is a redis:// URL. Default empty: limits are kept in process.
	URL string `yaml:"url"`
	// Timeout bounds each wait on Redis of a request: dialing, reading,
	// writing and waiting for a pooled connection (unless the URL sets
	// dial_timeout, read_timeout, write_timeout or pool_timeout). A
	// request that meets an unreachable Redis waits at most about this
	// long, once: later ones skip Redis until it answers again.
	// Default 250ms.
	Timeout time.Duration `yaml:"timeout"`
	// Prefix starts every key and channel Switchyard keeps in Redis;
	// empty means "switchyard:". It has no file key: tests that share one
	// Redis give each gateway its own, so that keys named by deployment
	// (the shared health) do not meet another test's.
	Prefix string `yaml:"-"`
}

// Auth configures API key authentication.
type Auth struct {
	// LastUsedInterval is how often at most a key's last_used_at is
	// written. Default 1m.
	LastUsedInterval time.Duration `yaml:"last_used_interval"`
	// ChangePollInterval is how often a SQLite-backed server checks the
	// database for changes made by other processes (revocations). Default
	// 20ms. PostgreSQL is notified instead and polls only as a safety net.
	ChangePollInterval time.Duration `yaml:"change_poll_interval"`
	// NegativeCacheSize bounds how many unknown keys are remembered to
	// spare the database repeated look-ups. Default 10000.
	NegativeCacheSize int `yaml:"negative_cache_size"`
}

// Log configures logging to stderr.
type Log struct {
	// Level is debug, info, warn or error. Default info.
	Level string `yaml:"level"`
	// Format is json or text. Default json.
	Format string `yaml:"format"`
}

// Models configures the model endpoints.
type Models struct {
	// Listing is "catalog" (GET /v1/models lists the models the key may
	// use) or "wildcard" (the seed's behaviour: one entry "*", and
	// /v1/models/{model} answers 400 MISSING_CONTEXT). Default catalog.
	Listing string `yaml:"listing"`
	// Add adds models to the built-in catalogue or changes built-in ones
	// (their prices, limits, or deployments). Default none.
	Add []ModelEntry `yaml:"add"`
}

// Metering configures usage records.
type Metering struct {
	// Enabled records the usage and cost of every request. Turning it off
	// also turns off monthly budgets and billing alerts, which are fed by
	// the records. Default true.
	Enabled bool `yaml:"enabled"`
	// JournalDir is where records are journaled before they reach the
	// database. Default: beside a SQLite database, its path plus
	// ".usage-journal"; with PostgreSQL, "switchyard-usage-journal" in the
	// working directory. Give each host (or container) a persistent one.
	JournalDir string `yaml:"journal_dir"`
	// BatchSize is the most records written in one transaction. Default 500.
	BatchSize int `yaml:"batch_size"`
	// FlushInterval is the longest a record waits for its batch. Default 100ms.
	FlushInterval time.Duration `yaml:"flush_interval"`
	// QueueSize bounds the records waiting for the writer; past it they
	// stay in the journal and are read back. Default 65536.
	QueueSize int `yaml:"queue_size"`
	// MemoryLimit is how many records are held in memory while the
	// database is unavailable; past it they are read back from the
	// journal when it returns. Default 100000.
	MemoryLimit int `yaml:"memory_limit"`
	// Retention is how long per-request usage records (the request log)
	// are kept: older ones are deleted in small batches in the
	// background, every hour. The daily totals (usage per day, model and
	// key, which budgets, alerts and the usage page read) are kept
	// forever. 0 keeps every record; otherwise at least 24h. Default 0.
	Retention time.Duration `yaml:"retention"`
}

// Alerts configures the delivery of billing alerts.
type Alerts struct {
	// WebhookAllowPrivate lets webhooks reach loopback, private and
	// link-local addresses. Default false: only public addresses.
	WebhookAllowPrivate bool `yaml:"webhook_allow_private"`
	// WebhookAllowedNetworks lists CIDR ranges webhooks may reach even
	// though they are private, e.g. ["10.20.0.0/16"]. Default none.
	WebhookAllowedNetworks []string `yaml:"webhook_allowed_networks"`
	// SMTP sends alert emails. Default: not configured (email deliveries
	// fail with "SMTP is not configured").
	SMTP SMTP `yaml:"smtp"`
}

// SMTP is an outgoing mail server.
type SMTP struct {
	// Host is the server's name. Default empty: email is off.
	Host string `yaml:"host"`
	// Port defaults to 465 with tls: tls, else 587.
	Port int `yaml:"port"`
	// Username and Password authenticate (PLAIN, only over TLS). The
	// password can come from SWITCHYARD_SMTP_PASSWORD instead of the file.
	Username string `yaml:"username"`
	Password string `yaml:"password"`
	// From is the sender address. Required with a host.
	From string `yaml:"from"`
	// TLS is "starttls" (default: upgrade when offered, required with a
	// username), "tls" (implicit TLS) or "none".
	TLS string `yaml:"tls"`
}

// Responses configures the Responses API's stored answers.
type Responses struct {
	// Retention is how long a stored response can be retrieved and
	// continued (previous_response_id); expired ones are purged in the
	// background. Default 720h (30 days, as OpenAI keeps them).
	Retention time.Duration `yaml:"retention"`
}

// Dashboard configures the account owners' web interface.
type Dashboard struct {
	// Enabled serves the dashboard. Default true.
	Enabled bool `yaml:"enabled"`
	// Listen is a separate address to serve the dashboard on, under
	// /dashboard as on the API's listener. Default "": the API's listener
	// serves it under /dashboard.
	Listen string `yaml:"listen"`
	// AllowSignup lets anyone create an account on the sign-in page.
	// Default false: accounts are created by the operator.
	AllowSignup bool `yaml:"allow_signup"`
	// SessionTTL is how long a sign-in lasts, however active. Default 12h.
	SessionTTL time.Duration `yaml:"session_ttl"`
	// SecureCookies is "auto" (the session cookie is Secure when the
	// request came over TLS), "always" (behind a TLS-terminating proxy)
	// or "never". Default auto.
	SecureCookies string `yaml:"secure_cookies"`
	// TrustedProxies are the CIDR ranges of reverse proxies whose
	// X-Forwarded-For names the client, for the sign-in throttle's
	// per-address count, e.g. ["10.0.0.5/32"]. Default none: the
	// connection's address counts and the header is ignored.
	TrustedProxies []string `yaml:"trusted_proxies"`
}

// Limits configures how limits are enforced, and the rate limits of keys
// and accounts that have none of their own (0 = unlimited).
type Limits struct {
	// FailClosed refuses requests (503) when the shared counters (Redis)
	// cannot be read, instead of serving them from per-process counters.
	// Default false.
	FailClosed bool `yaml:"fail_closed"`
	// Replicas is how many gateway processes share the limits through
	// Redis. While Redis is unreachable each enforces ceil(limit /
	// Replicas) in its own memory, so that together they stay near the
	// limit. Default 1.
	Replicas int64 `yaml:"replicas"`
	// KeyRPM and KeyTPM are each key's requests and tokens per minute
	// unless the key has its own. Default 0 (unlimited).
	KeyRPM int64 `yaml:"key_rpm"`
	KeyTPM int64 `yaml:"key_tpm"`
	// AccountRPM and AccountTPM are each account's requests and tokens per
	// minute unless the account has its own. Default 0 (unlimited).
	AccountRPM int64 `yaml:"account_rpm"`
	AccountTPM int64 `yaml:"account_tpm"`
	// OutputAllowance is how many output tokens a request without
	// max_tokens reserves from its TPM limits (at most the model's output
	// limit); the reservation is corrected to real usage afterwards.
	// Default 1024.
	OutputAllowance int64 `yaml:"output_allowance"`
}

// JournalDir returns the metering journal directory, defaulted from the
// database URL.
func (c *Config) JournalDir() string {
	if c.Metering.JournalDir != "" {
		return c.Metering.JournalDir
	}
	if c.Database.IsPostgres() {
		return "switchyard-usage-journal"
	}
	return c.Database.SQLitePath() + ".usage-journal"
}

// Default returns the embedded defaults: enough to run with no file.
func Default() Config {
	return Config{
		Server: Server{
			Listen:               "127.0.0.1:8080",
			ReadHeaderTimeout:    10 * time.Second,
			ReadTimeout:          60 * time.Second,
			IdleTimeout:          120 * time.Second,
			ShutdownGrace:        30 * time.Second,
			MaxBodyBytes:         32 << 20,
			MaxBodyBytesInFlight: 256 << 20,
		},
		Database: Database{URL: "switchyard.db", MaxOpenConns: 16},
		Auth: Auth{
			LastUsedInterval:   time.Minute,
			ChangePollInterval: 20 * time.Millisecond,
			NegativeCacheSize:  10000,
		},
		Log:     Log{Level: "info", Format: "json"},
		Models:  Models{Listing: "catalog"},
		Routing: defaultRouting(),
		Redis:   Redis{Timeout: 250 * time.Millisecond},
		Limits:  Limits{OutputAllowance: 1024, Replicas: 1},
		Metering: Metering{
			Enabled:       true,
			BatchSize:     500,
			FlushInterval: 100 * time.Millisecond,
			QueueSize:     65536,
			MemoryLimit:   100000,
		},
		Dashboard: Dashboard{Enabled: true, SessionTTL: 12 * time.Hour, SecureCookies: "auto"},
		Responses: Responses{Retention: 720 * time.Hour},
		Tracing:   defaultTracing(),
	}
}

// Validate checks every value and names the first key that is wrong.
func (c *Config) Validate() error {
	checks := []struct {
		key string
		err string
	}{
		{"server.listen", listenErr(c.Server.Listen)},
		{"server.read_header_timeout", positive(c.Server.ReadHeaderTimeout)},
		{"server.read_timeout", positive(c.Server.ReadTimeout)},
		{"server.idle_timeout", positive(c.Server.IdleTimeout)},
		{"server.shutdown_grace", nonNegative(c.Server.ShutdownGrace)},
		{"server.max_body_bytes", minInt(c.Server.MaxBodyBytes, 1024)},
		{"server.max_body_bytes_in_flight", minInt(c.Server.MaxBodyBytesInFlight, c.Server.MaxBodyBytes+1)},
		{"server.cors_origins", originsErr(c.Server.CORSOrigins)},
		{"tls", tlsErr(c.TLS)},
		{"database.url", databaseErr(c.Database.URL)},
		{"database.max_open_conns", minInt(int64(c.Database.MaxOpenConns), 1)},
		{"redis.url", redisErr(c.Redis.URL)},
		{"redis.timeout", positive(c.Redis.Timeout)},
		{"auth.last_used_interval", positive(c.Auth.LastUsedInterval)},
		{"auth.change_poll_interval", positive(c.Auth.ChangePollInterval)},
		{"auth.negative_cache_size", minInt(int64(c.Auth.NegativeCacheSize), 1)},
		{"log.level", oneOf(c.Log.Level, "debug", "info", "warn", "error")},
		{"log.format", oneOf(c.Log.Format, "json", "text")},
		{"models.listing", oneOf(c.Models.Listing, "catalog", "wildcard")},
		{"limits.key_rpm", minInt(c.Limits.KeyRPM, 0)},
		{"limits.key_tpm", minInt(c.Limits.KeyTPM, 0)},
		{"limits.account_rpm", minInt(c.Limits.AccountRPM, 0)},
		{"limits.account_tpm", minInt(c.Limits.AccountTPM, 0)},
		{"limits.output_allowance", minInt(c.Limits.OutputAllowance, 1)},
		{"limits.replicas", minInt(c.Limits.Replicas, 1)},
		{"alerts.webhook_allowed_networks", prefixesErr(c.Alerts.WebhookAllowedNetworks)},
		{"alerts.smtp.port", portErr(c.Alerts.SMTP.Port)},
		{"alerts.smtp.tls", oneOf(c.Alerts.SMTP.TLS, "", "starttls", "tls", "none")},
		{"alerts.smtp.from", smtpFromErr(c.Alerts.SMTP)},
		{"metering.batch_size", minInt(int64(c.Metering.BatchSize), 1)},
		{"metering.flush_interval", positive(c.Metering.FlushInterval)},
		{"metering.queue_size", minInt(int64(c.Metering.QueueSize), 1)},
		{"metering.memory_limit", minInt(int64(c.Metering.MemoryLimit), 1)},
		{"metering.retention", retentionErr(c.Metering.Retention)},
		{"dashboard.listen", dashboardListenErr(c.Dashboard.Listen, c.Server.Listen)},
		{"dashboard.session_ttl", minDuration(c.Dashboard.SessionTTL, time.Minute)},
		{"dashboard.secure_cookies", oneOf(c.Dashboard.SecureCookies, "auto", "always", "never")},
		{"dashboard.trusted_proxies", prefixesErr(c.Dashboard.TrustedProxies)},
		{"responses.retention", minDuration(c.Responses.Retention, time.Minute)},
		{"metrics.listen", metricsListenErr(c.Metrics.Listen, c.Server.Listen, c.Dashboard.Listen)},
		{"metrics.bearer_token_env", bearerEnvErr(c.Metrics)},
	}
	for _, ch := range checks {
		if ch.err != "" {
			return fmt.Errorf("%s: %s", ch.key, ch.err)
		}
	}
	if err := c.Tracing.validate(); err != nil {
		return err
	}
	if err := c.validateProviders(); err != nil {
		return err
	}
	if err := c.validateModels(); err != nil {
		return err
	}
	return c.validateRouting()
}

func prefixesErr(ps []string) string {
	for _, p := range ps {
		if _, err := netip.ParsePrefix(p); err != nil {
			return fmt.Sprintf("expected CIDR ranges such as 10.0.0.0/8, got %q", p)
		}
	}
	return ""
}

func portErr(p int) string {
	if p < 0 || p > 65535 {
		return fmt.Sprintf("expected a port from 1 to 65535, got %d", p)
	}
	return ""
}

func smtpFromErr(s SMTP) string {
	if s.Host == "" {
		return ""
	}
	if _, err := mail.ParseAddress(s.From); err != nil || strings.ContainsAny(s.From, "\r\n") {
		return fmt.Sprintf("expected the sender's address with smtp.host set, got %q", s.From)
	}
	return ""
}

func listenErr(addr string) string {
	_, port, err := net.SplitHostPort(addr)
	if err == nil {
		_, err = strconv.ParseUint(port, 10, 16)
	}
	if err != nil {
		return fmt.Sprintf("expected host:port such as 127.0.0.1:8080, got %q", addr)
	}
	return ""
}

func dashboardListenErr(addr, api string) string {
	switch {
	case addr == "":
		return ""
	case addr == api:
		return fmt.Sprintf("expected another address than server.listen, or \"\" to serve the dashboard there, got %q", addr)
	}
	return listenErr(addr)
}

func minDuration(d, min time.Duration) string {
	if d < min {
		return fmt.Sprintf("expected a duration of at least %s, got %s", min, d)
	}
	return ""
}

// retentionErr checks metering.retention: 0 (forever), or at least a
// day, so that a record is never purged while its batch may still be
// replayed from a journal (which would count it in the rollup twice).
func retentionErr(d time.Duration) string {
	if d != 0 && d < 24*time.Hour {
		return fmt.Sprintf("expected 0 (keep every record) or a duration of at least 24h such as \"2160h\", got %s", d)
	}
	return ""
}

func positive(d time.Duration) string {
	if d <= 0 {
		return fmt.Sprintf("expected a positive duration such as \"30s\", got %s", d)
	}
	return ""
}

func nonNegative(d time.Duration) string {
	if d < 0 {
		return fmt.Sprintf("expected a duration of zero or more such as \"30s\", got %s", d)
	}
	return ""
}

func minInt(v, min int64) string {
	if v < min {
		return fmt.Sprintf("expected an integer of at least %d, got %d", min, v)
	}
	return ""
}

func oneOf(v string, allowed ...string) string {
	for _, a := range allowed {
		if v == a {
			return ""
		}
	}
	return fmt.Sprintf("expected one of %s, got %q", strings.Join(allowed, ", "), v)
}

func originsErr(origins []string) string {
	for _, o := range origins {
		u, err := url.Parse(o)
		if o == "*" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || o != u.Scheme+"://"+u.Host {
			return fmt.Sprintf("expected origins such as https://app.example.com, got %q", o)
		}
	}
	return ""
}

func tlsErr(t TLS) string {
	if (t.CertFile == "") != (t.KeyFile == "") {
		return "expected both cert_file and key_file, or neither"
	}
	return ""
}

func databaseErr(u string) string {
	switch {
	case u == "":
		return "expected a SQLite file path or a postgres:// URL, got nothing"
	case strings.Contains(u, "://") && !strings.HasPrefix(u, "postgres://") && !strings.HasPrefix(u, "postgresql://"):
		return fmt.Sprintf("expected a SQLite file path or a postgres:// URL, got a %q URL", u[:strings.Index(u, "://")])
	}
	return ""
}

func redisErr(u string) string {
	if u == "" {
		return ""
	}
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "redis" && p.Scheme != "rediss") || p.Host == "" {
		return "expected a redis:// or rediss:// URL"
	}
	return ""
}
