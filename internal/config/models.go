package config

import "fmt"

// validateModels checks the models the file adds or changes. Whether
// fallbacks name catalogue models is checked where the catalogue is built
// (app.Routes).
func (c *Config) validateModels() error {
	for i, m := range c.Models.Add {
		key := fmt.Sprintf("models.add[%d]", i)
		if m.ID == "" {
			return fmt.Errorf("%s.id: expected a model ID", key)
		}
		if msg := oneOf(m.Strategy, "weighted", "least-busy", "latency"); m.Strategy != "" && msg != "" {
			return fmt.Errorf("%s.strategy: %s", key, msg)
		}
		if err := fallbacksErr(key+".fallbacks", m.ID, m.Fallbacks); err != nil {
			return err
		}
		if err := fallbacksErr(key+".context_window_fallbacks", m.ID, m.ContextWindowFallbacks); err != nil {
			return err
		}
		for j, d := range m.Deployments {
			if err := d.validate(fmt.Sprintf("%s.deployments[%d]", key, j)); err != nil {
				return err
			}
		}
	}
	return nil
}

// fallbacksErr checks a list of fallback model IDs of model id.
func fallbacksErr(key, id string, ids []string) error {
	seen := map[string]bool{}
	for i, f := range ids {
		switch {
		case f == "":
			return fmt.Errorf("%s[%d]: expected a model ID", key, i)
		case f == id:
			return fmt.Errorf("%s[%d]: expected another model than %q itself", key, i, id)
		case seen[f]:
			return fmt.Errorf("%s[%d]: %q is listed twice", key, i, f)
		}
		seen[f] = true
	}
	return nil
}

func (d DeploymentEntry) validate(key string) error {
	checks := []struct {
		key string
		err string
	}{
		{"provider", nonEmpty(d.Provider, "a provider name or type")},
		{"upstream_id", nonEmpty(d.UpstreamID, "the model's ID at the provider")},
		{"weight", minInt(int64(d.Weight), 0)},
		{"first_byte_timeout", nonNegative(d.FirstByteTimeout)},
		{"timeout", nonNegative(d.Timeout)},
	}
	for _, ch := range checks {
		if ch.err != "" {
			return fmt.Errorf("%s.%s: %s", key, ch.key, ch.err)
		}
	}
	if d.Timeout > 0 && d.FirstByteTimeout > d.Timeout {
		return fmt.Errorf("%s.first_byte_timeout: expected at most timeout (%s), got %s", key, d.Timeout, d.FirstByteTimeout)
	}
	return nil
}

func nonEmpty(v, what string) string {
	if v == "" {
		return "expected " + what
	}
	return ""
}
