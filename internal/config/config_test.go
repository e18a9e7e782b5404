package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// writeConfig writes content to a file in a fresh temporary directory and
// returns its path.
func writeConfig(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "switchyard.yaml")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// fakeEnv returns a getenv func that reads from vars instead of the process
// environment.
func fakeEnv(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestLoadNoFile(t *testing.T) {
	got, err := Load("", fakeEnv(nil))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if diff := cmp.Diff(Default(), *got); diff != "" {
		t.Errorf("Load(\"\") mismatch (-want +got):\n%s", diff)
	}
}

const fullConfig = `
server:
  listen: "0.0.0.0:9090"
  read_header_timeout: 5s
  read_timeout: 2m
  idle_timeout: 90s
  shutdown_grace: 0s
  max_body_bytes: 1048576
  max_body_bytes_in_flight: 67108864
  cors_origins:
    - https://app.example.com
    - http://localhost:3000
tls:
  cert_file: /etc/switchyard/cert.pem
  key_file: /etc/switchyard/key.pem
database:
  url: postgres://switchyard@db:5432/switchyard?sslmode=disable
  max_open_conns: 32
redis:
  url: rediss://redis.internal:6380/1
  timeout: 100ms
auth:
  last_used_interval: 5m
  change_poll_interval: 500ms
  negative_cache_size: 500
log:
  level: debug
  format: text
models:
  listing: wildcard
  add:
    - id: llama-3.1-8b
      family: llama
      mode: chat
      input_usd_per_mtok: "0.05"
      output_usd_per_mtok: "0.08"
      cached_input_usd_per_mtok: "0.01"
      context_window: 131072
      max_output_tokens: 8192
      functions: true
      vision: false
      embedding_dimensions: 0
      deployments:
        - provider: local
          upstream_id: meta-llama/Llama-3.1-8B-Instruct
        - {provider: oa, upstream_id: llama-3.1-8b, weight: 0, priority: 1, first_byte_timeout: 20s, timeout: 1m}
      strategy: least-busy
      fallbacks: [gpt-4o-mini]
      context_window_fallbacks: [gpt-4.1-mini]
routing:
  retries: 4
  cooldown: 1m
  allowed_fails: 0
  retry_budget: {ratio: 0.5, window: 30s, min_per_second: 2.5}
  backoff: {base: 50ms, max: 1s}
  max_retry_after: 0s
metering:
  journal_dir: /var/lib/switchyard/journal
  batch_size: 200
  flush_interval: 50ms
  queue_size: 1000
  memory_limit: 5000
  retention: 2160h
alerts:
  webhook_allowed_networks: [10.20.0.0/16]
  smtp:
    host: mail.example.com
    port: 2525
    username: alerts
    from: Switchyard <alerts@example.com>
    tls: starttls
limits:
  fail_closed: true
  replicas: 3
  key_rpm: 60
  key_tpm: 10000
  account_rpm: 600
  account_tpm: 100000
  output_allowance: 512
dashboard:
  enabled: false
  listen: "0.0.0.0:9091"
  allow_signup: true
  session_ttl: 30m
  secure_cookies: always
  trusted_proxies: [10.0.0.5/32, "fd00::/64"]
responses:
  retention: 168h
tracing:
  enabled: true
  exporter: otlp
  protocol: grpc
  endpoint: http://otel-collector:4317
  sample_ratio: 0.25
providers:
  - name: local
    type: openai_compatible
    base_url: http://vllm:8000/v1/
    api_key_env: LOCAL_KEY
    connect_timeout: 3s
    first_byte_timeout: 45s
    timeout: 2m
    stream_idle_timeout: 30s
    headers:
      X-Team: research
    functions: translate
    models: [meta-llama/Llama-3.1-8B-Instruct]
  - name: oa
    type: openai
    api_key: sk-from-file
`

func TestLoadFullFile(t *testing.T) {
	got, err := Load(writeConfig(t, fullConfig), fakeEnv(map[string]string{"LOCAL_KEY": "sk-local", "SWITCHYARD_SMTP_PASSWORD": "smtp-secret"}))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	want := Config{
		Server: Server{
			Listen:               "0.0.0.0:9090",
			ReadHeaderTimeout:    5 * time.Second,
			ReadTimeout:          2 * time.Minute,
			IdleTimeout:          90 * time.Second,
			ShutdownGrace:        0,
			MaxBodyBytes:         1 << 20,
			MaxBodyBytesInFlight: 64 << 20,
			CORSOrigins:          []string{"https://app.example.com", "http://localhost:3000"},
		},
		TLS:      TLS{CertFile: "/etc/switchyard/cert.pem", KeyFile: "/etc/switchyard/key.pem"},
		Database: Database{URL: "postgres://switchyard@db:5432/switchyard?sslmode=disable", MaxOpenConns: 32},
		Redis:    Redis{URL: "rediss://redis.internal:6380/1", Timeout: 100 * time.Millisecond},
		Auth: Auth{
			LastUsedInterval:   5 * time.Minute,
			ChangePollInterval: 500 * time.Millisecond,
			NegativeCacheSize:  500,
		},
		Log: Log{Level: "debug", Format: "text"},
		Models: Models{
			Listing: "wildcard",
			Add: []ModelEntry{{
				ID:               "llama-3.1-8b",
				Family:           "llama",
				Mode:             "chat",
				InputUSDPerMtok:  "0.05",
				OutputUSDPerMtok: "0.08",
				CachedUSDPerMtok: "0.01",
				ContextWindow:    131072,
				MaxOutputTokens:  8192,
				Functions:        true,
				Deployments: []DeploymentEntry{
					{Provider: "local", UpstreamID: "meta-llama/Llama-3.1-8B-Instruct", Weight: 1},
					{Provider: "oa", UpstreamID: "llama-3.1-8b", Weight: 0, Priority: 1,
						FirstByteTimeout: 20 * time.Second, Timeout: time.Minute},
				},
				Strategy:               "least-busy",
				Fallbacks:              []string{"gpt-4o-mini"},
				ContextWindowFallbacks: []string{"gpt-4.1-mini"},
			}},
		},
		Routing: Routing{Retries: 4, Cooldown: time.Minute, AllowedFails: 0,
			RetryBudget: RetryBudget{Ratio: 0.5, Window: 30 * time.Second, MinPerSecond: 2.5},
			Backoff:     Backoff{Base: 50 * time.Millisecond, Max: time.Second}, MaxRetryAfter: 0},
		Metering: Metering{Enabled: true, JournalDir: "/var/lib/switchyard/journal", BatchSize: 200,
			FlushInterval: 50 * time.Millisecond, QueueSize: 1000, MemoryLimit: 5000,
			Retention: 2160 * time.Hour},
		Alerts: Alerts{WebhookAllowedNetworks: []string{"10.20.0.0/16"}, SMTP: SMTP{Host: "mail.example.com", Port: 2525,
			Username: "alerts", Password: "smtp-secret", From: "Switchyard <alerts@example.com>", TLS: "starttls"}},
		Limits: Limits{FailClosed: true, Replicas: 3, KeyRPM: 60, KeyTPM: 10000, AccountRPM: 600, AccountTPM: 100000, OutputAllowance: 512},
		Dashboard: Dashboard{Listen: "0.0.0.0:9091", AllowSignup: true, SessionTTL: 30 * time.Minute,
			SecureCookies: "always", TrustedProxies: []string{"10.0.0.5/32", "fd00::/64"}},
		Responses: Responses{Retention: 7 * 24 * time.Hour},
		Tracing: Tracing{Enabled: true, Exporter: "otlp", Protocol: "grpc", Endpoint: "http://otel-collector:4317",
			SampleRatio: 0.25, Sampler: "parentbased_traceidratio", ServiceName: "switchyard"},
		Providers: []Provider{
			{
				Name:              "local",
				Type:              TypeOpenAICompatible,
				BaseURL:           "http://vllm:8000/v1", // trailing slash trimmed
				APIKeyEnv:         "LOCAL_KEY",
				APIKey:            "sk-local",
				ConnectTimeout:    3 * time.Second,
				FirstByteTimeout:  45 * time.Second,
				Timeout:           2 * time.Minute,
				StreamIdleTimeout: 30 * time.Second,
				Headers:           map[string]string{"X-Team": "research"},
				Functions:         "translate",
				Models:            []string{"meta-llama/Llama-3.1-8B-Instruct"},
			},
			{
				Name:              "oa",
				Type:              TypeOpenAI,
				BaseURL:           DefaultBaseURLs[TypeOpenAI],
				APIKey:            "sk-from-file",
				ConnectTimeout:    10 * time.Second,
				FirstByteTimeout:  10 * time.Minute,
				Timeout:           10 * time.Minute,
				StreamIdleTimeout: 2 * time.Minute,
				Functions:         "native",
			},
		},
	}
	if diff := cmp.Diff(want, *got); diff != "" {
		t.Errorf("Load mismatch (-want +got):\n%s", diff)
	}
	if !got.TLS.Enabled() {
		t.Errorf("TLS.Enabled() = false, want true")
	}
	if !got.Database.IsPostgres() {
		t.Errorf("Database.IsPostgres() = false, want true")
	}
}

func TestLoadKeepsDefaults(t *testing.T) {
	tests := []struct {
		name    string
		content string
	}{
		{"empty", ""},
		{"blank lines", "\n\n  \n"},
		{"comments only", "# Switchyard configuration\n\n# server:\n#   listen: 0.0.0.0:80\n"},
		{"document marker only", "---\n"},
		{"null document", "~\n"},
		{"null sections", "server:\ntls:\nlog: ~\n"},
		{"empty sections", "server: {}\nmodels: {}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Load(writeConfig(t, tt.content), fakeEnv(nil))
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if diff := cmp.Diff(Default(), *got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadPartialFile(t *testing.T) {
	// Keys the file leaves out keep their defaults, in the same section too.
	got, err := Load(writeConfig(t, "server:\n  read_timeout: 5m\nlog:\n  format: text\n"), fakeEnv(nil))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	want := Default()
	want.Server.ReadTimeout = 5 * time.Minute
	want.Log.Format = "text"
	if diff := cmp.Diff(want, *got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

func TestLoadEnv(t *testing.T) {
	const file = "server:\n  listen: 127.0.0.1:7000\n" +
		"database:\n  url: /var/lib/switchyard/file.db\n" +
		"redis:\n  url: redis://file-redis:6379\n"
	fromFile := []string{"127.0.0.1:7000", "/var/lib/switchyard/file.db", "redis://file-redis:6379"}
	defaults := []string{"127.0.0.1:8080", "switchyard.db", ""}
	tests := []struct {
		name    string
		content string // empty: no file
		env     map[string]string
		want    []string // server.listen, database.url, redis.url
	}{
		{"file only", file, nil, fromFile},
		{"env beats file", file, map[string]string{
			"SWITCHYARD_LISTEN":       ":8443",
			"SWITCHYARD_DATABASE_URL": "postgres://u:pw@db/switchyard",
			"SWITCHYARD_REDIS_URL":    "redis://env-redis:6379/2",
		}, []string{":8443", "postgres://u:pw@db/switchyard", "redis://env-redis:6379/2"}},
		{"env beats defaults", "", map[string]string{
			"SWITCHYARD_LISTEN":       "0.0.0.0:80",
			"SWITCHYARD_DATABASE_URL": "data/switchyard.db",
		}, []string{"0.0.0.0:80", "data/switchyard.db", ""}},
		{"one variable", file, map[string]string{"SWITCHYARD_REDIS_URL": "redis://env-redis:6379"},
			[]string{"127.0.0.1:7000", "/var/lib/switchyard/file.db", "redis://env-redis:6379"}},
		{"empty env keeps file", file, map[string]string{
			"SWITCHYARD_LISTEN": "", "SWITCHYARD_DATABASE_URL": "", "SWITCHYARD_REDIS_URL": "",
		}, fromFile},
		// The caller turns SWITCHYARD_CONFIG into path; Load ignores it.
		{"SWITCHYARD_CONFIG ignored", "", map[string]string{"SWITCHYARD_CONFIG": "/nonexistent.yaml"}, defaults},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := ""
			if tt.content != "" {
				path = writeConfig(t, tt.content)
			}
			got, err := Load(path, fakeEnv(tt.env))
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			want := Default()
			want.Server.Listen, want.Database.URL, want.Redis.URL = tt.want[0], tt.want[1], tt.want[2]
			if diff := cmp.Diff(want, *got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name    string
		content string
		env     map[string]string
		want    []string // substrings the error must contain
		notWant []string // substrings it must not contain (secrets)
	}{
		{"unknown top-level key", "server:\n  listen: :8080\nlistener: :9090\n", nil, []string{"line 3", "listener", "unknown key"}, nil},
		{"unknown nested key", "server:\n  lisen: :8080\n", nil, []string{"line 2", "server.lisen", "unknown key"}, nil},
		{"dev has no file key", "dev: true\n", nil, []string{"dev", "unknown key"}, nil},
		{"duration not parseable", "server:\n  read_timeout: abc\n", nil, []string{"line 2", "server.read_timeout", "expected a duration", `"abc"`}, nil},
		{"duration without unit", "auth:\n  last_used_interval: 60\n", nil, []string{"auth.last_used_interval", "expected a duration", `"60"`}, nil},
		{"duration as mapping", "server:\n  idle_timeout: {seconds: 5}\n", nil, []string{"server.idle_timeout", "expected a duration"}, nil},
		{"number for a section", "server: 5\n", nil, []string{"line 1", "server", "expected a mapping"}, nil},
		{"list for a section", "log:\n  - level\n", nil, []string{"log", "expected a mapping"}, nil},
		{"string for an int", "server:\n  max_body_bytes: big\n", nil, []string{"line 2", "server.max_body_bytes", "expected an integer", `"big"`}, nil},
		{"float for an int", "database:\n  max_open_conns: 1.5\n", nil, []string{"database.max_open_conns", "expected an integer"}, nil},
		{"bool for a string", "log:\n  level: true\n", nil, []string{"line 2", "log.level", "expected a string"}, nil},
		{"list for a scalar", "server:\n  listen: [\":8080\", \":8081\"]\n", nil, []string{"server.listen", "expected a single string"}, nil},
		{"mapping for a scalar", "database:\n  url:\n    path: x.db\n", nil, []string{"database.url", "expected a single string"}, nil},
		{"cors_origins not a list", "server:\n  cors_origins: https://app.example.com\n", nil, []string{"server.cors_origins", "expected a list"}, nil},
		{"cors_origins item not a string", "server:\n  cors_origins:\n    - [https://a.example.com]\n", nil, []string{"server.cors_origins[0]", "expected a single string"}, nil},
		{"wildcard origin", "server:\n  cors_origins: [\"*\"]\n", nil, []string{"server.cors_origins", "expected origins such as", `"*"`}, nil},
		{"origin with a path", "server:\n  cors_origins: [https://app.example.com/ui]\n", nil, []string{"server.cors_origins", "expected origins such as", "https://app.example.com/ui"}, nil},
		{"origin with trailing slash", "server:\n  cors_origins: [https://app.example.com/]\n", nil, []string{"server.cors_origins", "expected origins such as"}, nil},
		{"origin without scheme", "server:\n  cors_origins: [app.example.com]\n", nil, []string{"server.cors_origins", "expected origins such as"}, nil},
		{"negative duration", "server:\n  read_timeout: -5s\n", nil, []string{"server.read_timeout", "expected a positive duration", "-5s"}, nil},
		{"zero duration where positive is needed", "auth:\n  change_poll_interval: 0s\n", nil, []string{"auth.change_poll_interval", "expected a positive duration"}, nil},
		{"negative shutdown grace", "server:\n  shutdown_grace: -1s\n", nil, []string{"server.shutdown_grace", "zero or more"}, nil},
		{"body limit too small", "server:\n  max_body_bytes: 10\n", nil, []string{"server.max_body_bytes", "at least 1024"}, nil},
		{"bodies in flight below one body", "server:\n  max_body_bytes: 2048\n  max_body_bytes_in_flight: 2048\n", nil, []string{"server.max_body_bytes_in_flight", "at least 2049"}, nil},
		{"no connections", "database:\n  max_open_conns: 0\n", nil, []string{"database.max_open_conns", "at least 1"}, nil},
		{"no replicas", "limits:\n  replicas: 0\n", nil, []string{"limits.replicas", "at least 1"}, nil},
		{"zero redis timeout", "redis:\n  timeout: 0s\n", nil, []string{"redis.timeout", "expected a positive duration"}, nil},
		{"tracing exporter", "tracing:\n  exporter: zipkin\n", nil, []string{"tracing.exporter", `"zipkin"`}, nil},
		{"tracing protocol", "tracing:\n  protocol: http\n", nil, []string{"tracing.protocol", "grpc", `"http"`}, nil},
		{"tracing endpoint without scheme", "tracing:\n  endpoint: collector:4317\n", nil, []string{"tracing.endpoint", "http://"}, nil},
		{"sample ratio above 1", "tracing:\n  sample_ratio: 1.5\n", nil, []string{"tracing.sample_ratio", "1.5"}, nil},
		{"sample ratio negative", "tracing:\n  sample_ratio: -0.1\n", nil, []string{"tracing.sample_ratio"}, nil},
		{"sample ratio a string", "tracing:\n  sample_ratio: all\n", nil, []string{"tracing.sample_ratio", "expected a number"}, nil},
		{"OTLP protocol variable", "", map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "thrift"}, []string{"OTEL_EXPORTER_OTLP_PROTOCOL", `"thrift"`}, nil},
		{"sampler variable", "", map[string]string{"OTEL_TRACES_SAMPLER": "jaeger_remote"}, []string{"OTEL_TRACES_SAMPLER", `"jaeger_remote"`}, nil},
		{"sampler argument", "", map[string]string{"OTEL_TRACES_SAMPLER": "parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG": "2"},
			[]string{"OTEL_TRACES_SAMPLER_ARG", `"2"`}, nil},
		{"SDK disabled variable", "", map[string]string{"OTEL_SDK_DISABLED": "yes please"}, []string{"OTEL_SDK_DISABLED"}, nil},
		{"negative cache size", "auth:\n  negative_cache_size: -1\n", nil, []string{"auth.negative_cache_size", "at least 1"}, nil},
		{"listen without port", "server:\n  listen: localhost\n", nil, []string{"server.listen", "expected host:port"}, nil},
		{"unknown log level", "log:\n  level: loud\n", nil, []string{"log.level", "expected one of debug, info, warn, error", `"loud"`}, nil},
		{"unknown log format", "log:\n  format: xml\n", nil, []string{"log.format", "expected one of json, text"}, nil},
		{"unknown models listing", "models:\n  listing: other\n", nil, []string{"models.listing", "expected one of catalog, wildcard", `"other"`}, nil},
		{"mysql database", "database:\n  url: mysql://x\n", nil, []string{"database.url", "expected a SQLite file path or a postgres:// URL", `"mysql"`}, nil},
		{"mysql database with password", "database:\n  url: mysql://root:hunter2@db:3306/switchyard\n", nil, []string{"database.url", "expected a SQLite file path or a postgres:// URL"}, []string{"hunter2", "root:"}},
		{"empty database url", "database:\n  url: \"\"\n", nil, []string{"database.url", "got nothing"}, nil},
		{"tls with only cert_file", "tls:\n  cert_file: /etc/cert.pem\n", nil, []string{"tls", "expected both cert_file and key_file"}, nil},
		{"tls with only key_file", "tls:\n  key_file: /etc/key.pem\n", nil, []string{"tls", "expected both cert_file and key_file"}, nil},
		{"redis url with another scheme", "redis:\n  url: http://redis:6379\n", nil, []string{"redis.url", "expected a redis:// or rediss:// URL"}, nil},
		{"redis url without host", "redis:\n  url: redis://\n", nil, []string{"redis.url", "expected a redis:// or rediss:// URL"}, nil},
		{"redis url with password and bad port", "redis:\n  url: redis://:s3cret@redis:port/0\n", nil, []string{"redis.url", "expected a redis:// or rediss:// URL"}, []string{"s3cret"}},
		{"top level not a mapping", "- server\n- log\n", nil, []string{"line 1", "top level must be a mapping"}, nil},
		{"negative rpm", "limits:\n  key_rpm: -1\n", nil, []string{"limits.key_rpm", "at least 0"}, nil},
		{"bad network", "alerts:\n  webhook_allowed_networks: [10.0.0.0]\n", nil, []string{"alerts.webhook_allowed_networks", "CIDR"}, nil},
		{"smtp without from", "alerts:\n  smtp:\n    host: mail.example.com\n", nil, []string{"alerts.smtp.from"}, nil},
		{"smtp bad tls", "alerts:\n  smtp:\n    tls: ssl\n", nil, []string{"alerts.smtp.tls"}, nil},
		{"zero batch", "metering:\n  batch_size: 0\n", nil, []string{"metering.batch_size", "at least 1"}, nil},
		{"zero flush interval", "metering:\n  flush_interval: 0s\n", nil, []string{"metering.flush_interval", "positive"}, nil},
		{"bad metering key", "metering:\n  enabled: maybe\n", nil, []string{"metering.enabled"}, nil},
		{"dashboard on the api's address", "server:\n  listen: 127.0.0.1:8080\ndashboard:\n  listen: 127.0.0.1:8080\n", nil,
			[]string{"dashboard.listen", "another address than server.listen"}, nil},
		{"dashboard listen without port", "dashboard:\n  listen: localhost\n", nil, []string{"dashboard.listen", "expected host:port"}, nil},
		{"short session", "dashboard:\n  session_ttl: 30s\n", nil, []string{"dashboard.session_ttl", "at least 1m0s"}, nil},
		{"short retention", "responses:\n  retention: 30s\n", nil, []string{"responses.retention", "at least 1m0s"}, nil},
		{"short usage retention", "metering:\n  retention: 12h\n", nil, []string{"metering.retention", "at least 24h"}, nil},
		{"negative usage retention", "metering:\n  retention: -24h\n", nil, []string{"metering.retention", "at least 24h"}, nil},
		{"bad trusted proxy", "dashboard:\n  trusted_proxies: [10.0.0.5]\n", nil, []string{"dashboard.trusted_proxies", "CIDR"}, nil},
		{"secure cookies as a bool", "dashboard:\n  secure_cookies: true\n", nil, []string{"dashboard.secure_cookies", "expected a string"}, nil},
		{"unknown secure cookies", "dashboard:\n  secure_cookies: sometimes\n", nil,
			[]string{"dashboard.secure_cookies", "expected one of auto, always, never"}, nil},
		{"metrics on the api's address", "metrics:\n  listen: 127.0.0.1:8080\n", nil, []string{"metrics.listen", "an address of its own"}, nil},
		{"metrics on the dashboard's address", "dashboard:\n  listen: 127.0.0.1:8081\nmetrics:\n  listen: 127.0.0.1:8081\n", nil,
			[]string{"metrics.listen", "an address of its own"}, nil},
		{"metrics listen without port", "metrics:\n  listen: localhost\n", nil, []string{"metrics.listen", "expected host:port"}, nil},
		{"metrics token variable unset", "metrics:\n  enabled: true\n  bearer_token_env: METRICS_TOKEN\n", nil,
			[]string{"metrics.bearer_token_env", "METRICS_TOKEN", "empty or unset"}, nil},
		{"metrics per_account not a bool", "metrics:\n  per_account: 1\n", nil, []string{"metrics.per_account", "expected true or false"}, nil},
		{"invalid yaml", "server:\n  listen: \":8080\"\n  read_timeout: 5s: 6s\n", nil, []string{"line 3", "yaml"}, nil},
		{"bad indentation", "server:\n  listen: \":8080\"\n    read_timeout: 5s\n", nil, []string{"line", "yaml"}, nil},
		{"unclosed quote", "log:\n  level: \"info\n", nil, []string{"line"}, nil},
		{"tab indentation", "server:\n\tlisten: :8080\n", nil, []string{"line 2"}, nil},
		{"error names the file", "server: 5\n", nil, []string{"switchyard.yaml"}, nil},
		{"bad env listen", "", map[string]string{"SWITCHYARD_LISTEN": "8080"}, []string{"server.listen", "expected host:port", `"8080"`}, nil},
		{"bad env database url", "", map[string]string{"SWITCHYARD_DATABASE_URL": "mysql://root:hunter2@db/x"}, []string{"database.url", "postgres://"}, []string{"hunter2"}},
		{"bad env redis url", "", map[string]string{"SWITCHYARD_REDIS_URL": "localhost:6379"}, []string{"redis.url", "expected a redis:// or rediss:// URL"}, nil},
		{"bad env beats good file", "redis:\n  url: redis://ok:6379\n", map[string]string{"SWITCHYARD_REDIS_URL": "memcached://x"}, []string{"redis.url"}, nil},
		{"unknown provider type", "providers:\n  - type: bedrock\n", nil, []string{"providers[0].type", "expected one of", `"bedrock"`}, nil},
		{"unknown provider key", "providers:\n  - type: openai\n    apikey: x\n", nil, []string{"line 3", "providers[0].apikey", "unknown key"}, nil},
		{"provider header not a string", "providers:\n  - type: openai\n    headers:\n      X-A: [1]\n", nil, []string{"providers[0].headers.X-A", "expected a single string"}, nil},
		{"negative stream idle timeout", "providers:\n  - type: openai\n    stream_idle_timeout: -1s\n", nil, []string{"providers[0].stream_idle_timeout", "expected a positive duration"}, nil},
		{"model without id", "models:\n  add:\n    - family: x\n", nil, []string{"models.add[0].id", "expected a model ID"}, nil},
		{"model bool not a bool", "models:\n  add:\n    - id: m\n      vision: yes\n", nil, []string{"models.add[0].vision", "expected true or false", `"yes"`}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := ""
			if tt.content != "" {
				path = writeConfig(t, tt.content)
			}
			c, err := Load(path, fakeEnv(tt.env))
			if err == nil {
				t.Fatalf("Load succeeded with %+v, want an error containing %q", c, tt.want)
			}
			msg := err.Error()
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not contain %q", msg, w)
				}
			}
			for _, nw := range tt.notWant {
				if strings.Contains(msg, nw) {
					t.Errorf("error %q contains %q", msg, nw)
				}
			}
		})
	}
}

func TestLoadMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "absent.yaml")
	_, err := Load(path, fakeEnv(nil))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Load(%q) error = %v, want fs.ErrNotExist", path, err)
	}
	if !strings.Contains(err.Error(), path) {
		t.Errorf("error %q does not name the file %q", err, path)
	}
}

func TestDatabaseIsPostgres(t *testing.T) {
	tests := []struct {
		url  string
		want bool
	}{
		{"postgres://u@db/switchyard", true},
		{"postgresql://u@db/switchyard", true},
		{"switchyard.db", false},
		{"/var/lib/switchyard/switchyard.db", false},
		{"file:switchyard.db?cache=shared", false},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			if got := (Database{URL: tt.url}).IsPostgres(); got != tt.want {
				t.Errorf("IsPostgres() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestLoadRefusesAmbiguousFiles(t *testing.T) {
	for _, tt := range []struct{ name, yaml, want string }{
		{"repeated key", "server:\n  listen: 127.0.0.1:1\nserver:\n  listen: 127.0.0.1:2\n", "key repeated (first on line 1)"},
		{"repeated nested key", "server:\n  listen: 127.0.0.1:1\n  listen: 127.0.0.1:2\n", "server.listen: key repeated"},
		{"second document", "server:\n  read_timeout: 5s\n---\nserver:\n  read_timeout: abc\n", "expected one YAML document"},
		{"port out of range", "server:\n  listen: 127.0.0.1:99999\n", "server.listen"},
		{"origin with query", "server:\n  cors_origins: [\"https://a.example.com?x=1\"]\n", "server.cors_origins"},
		{"origin with user", "server:\n  cors_origins: [\"https://u:p@a.example.com\"]\n", "server.cors_origins"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "c.yaml")
			if err := os.WriteFile(path, []byte(tt.yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := Load(path, func(string) string { return "" })
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Load = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestJournalDir(t *testing.T) {
	for _, tc := range []struct{ db, dir, want string }{
		{"switchyard.db", "", "switchyard.db.usage-journal"},
		{"file:/var/lib/sy/sy.db?mode=rwc", "", "/var/lib/sy/sy.db.usage-journal"},
		{"postgres://u@db/x", "", "switchyard-usage-journal"},
		{"switchyard.db", "/data/journal", "/data/journal"},
	} {
		c := Default()
		c.Database.URL, c.Metering.JournalDir = tc.db, tc.dir
		if got := c.JournalDir(); got != tc.want {
			t.Errorf("JournalDir(%q, %q) = %q, want %q", tc.db, tc.dir, got, tc.want)
		}
	}
}

func TestLoadMetrics(t *testing.T) {
	tests := []struct {
		name    string
		content string
		env     map[string]string
		want    Metrics
		on      bool
	}{
		{"off by default", "", nil, Metrics{}, false},
		{"on the api's listener", "metrics:\n  enabled: true\n  bearer_token: tok\n  per_account: true\n", nil,
			Metrics{Enabled: true, BearerToken: "tok", PerAccount: true}, true},
		{"a listener of its own", "metrics:\n  listen: 127.0.0.1:9464\n", nil, Metrics{Listen: "127.0.0.1:9464"}, true},
		{"the token from a variable", "metrics:\n  enabled: true\n  bearer_token: file\n  bearer_token_env: METRICS_TOKEN\n",
			map[string]string{"METRICS_TOKEN": "from-env"}, Metrics{Enabled: true, BearerToken: "from-env", BearerTokenEnv: "METRICS_TOKEN"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := ""
			if tt.content != "" {
				path = writeConfig(t, tt.content)
			}
			c, err := Load(path, fakeEnv(tt.env))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, c.Metrics); diff != "" {
				t.Errorf("metrics (-want +got):\n%s", diff)
			}
			if c.Metrics.On() != tt.on {
				t.Errorf("On() = %v, want %v", c.Metrics.On(), tt.on)
			}
		})
	}
}
