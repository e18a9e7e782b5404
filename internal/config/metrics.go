package config

import "fmt"

// Metrics configures the Prometheus metrics (docs/observability.md).
// Either Enabled or Listen turns them on; with neither, the request path
// keeps no metrics at all.
type Metrics struct {
	// Enabled serves /metrics on the API's listener. Default false.
	Enabled bool `yaml:"enabled"`
	// Listen is a separate address to serve /metrics on, such as
	// "127.0.0.1:9464". Default "": no listener of its own.
	Listen string `yaml:"listen"`
	// BearerToken, when set, is required on /metrics as "Authorization:
	// Bearer <token>"; other scrapes get 401. Default empty: /metrics is
	// open to whoever reaches its address.
	BearerToken string `yaml:"bearer_token"`
	// BearerTokenEnv names the environment variable that holds the
	// token; when set, it replaces bearer_token, and an empty variable is
	// an error. Default empty.
	BearerTokenEnv string `yaml:"bearer_token_env"`
	// PerAccount adds an account label (the account's ID) to the
	// requests, tokens and cost; one series per account and model, so
	// only for a modest number of accounts. Default false: no account or
	// key ID is a label.
	PerAccount bool `yaml:"per_account"`
}

// On reports whether metrics are served anywhere.
func (m Metrics) On() bool { return m.Enabled || m.Listen != "" }

func metricsListenErr(addr, api, dashboard string) string {
	switch {
	case addr == "":
		return ""
	case addr == api || addr == dashboard:
		return fmt.Sprintf("expected an address of its own (not server.listen's or dashboard.listen's), or \"\" with enabled: true to serve /metrics on the API's listener, got %q", addr)
	}
	return listenErr(addr)
}

func bearerEnvErr(m Metrics) string {
	if m.BearerTokenEnv != "" && m.BearerToken == "" {
		return fmt.Sprintf("the variable %s is empty or unset: set it, or remove bearer_token_env", m.BearerTokenEnv)
	}
	return ""
}
