package app

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/config"
	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/provider/anthropic"
	"github.com/switchyard-gw/switchyard/internal/provider/gemini"
	"github.com/switchyard-gw/switchyard/internal/provider/mock"
	"github.com/switchyard-gw/switchyard/internal/provider/openai"
	"github.com/switchyard-gw/switchyard/internal/route"
)

// Routes builds the routing table of a configuration: the providers, and
// the built-in catalogue with the configuration's models (and, when a mock
// provider is enabled, the mock's models) added.
func Routes(cfg *config.Config, now func() time.Time) (*route.Table, error) {
	providers, provided := buildProviders(cfg)
	var added []catalog.Entry
	for i, m := range cfg.Models.Add {
		e, err := entry(m)
		if err != nil {
			return nil, fmt.Errorf("config: models.add[%d].%w", i, err)
		}
		added = append(added, e)
	}
	cat, err := catalog.Builtin()
	if err != nil {
		return nil, fmt.Errorf("catalogue: %w", err)
	}
	if cat, err = cat.With(provided); err != nil {
		return nil, fmt.Errorf("config: providers' models: %w", err)
	}
	if cat, err = cat.With(added); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	if err := checkFallbacks(cat, cfg.Models.Add); err != nil {
		return nil, err
	}
	return route.New(cat, providers, now), nil
}

// buildProviders makes one client per configured provider, adding the mock
// in dev mode. It returns the catalogue entries the providers bring.
func buildProviders(cfg *config.Config) ([]provider.Provider, []catalog.Entry) {
	var out []provider.Provider
	var entries []catalog.Entry
	hasMock := false
	for _, p := range cfg.Providers {
		switch p.Type {
		case config.TypeMock:
			hasMock = true
			out = append(out, mock.NewWithTimeouts(p.Name, provider.Timeouts{Connect: p.ConnectTimeout,
				FirstByte: p.FirstByteTimeout, Idle: p.StreamIdleTimeout, Total: p.Timeout}))
			entries = append(entries, mockEntries(p.Name)...)
		case config.TypeAnthropic:
			out = append(out, anthropic.New(anthropic.Options{Name: p.Name, BaseURL: p.BaseURL, APIKey: p.APIKey,
				Timeout: p.Timeout, FirstByteTimeout: p.FirstByteTimeout, ConnectTimeout: p.ConnectTimeout, StreamIdleTimeout: p.StreamIdleTimeout}))
		case config.TypeGemini:
			out = append(out, gemini.New(gemini.Options{Name: p.Name, BaseURL: p.BaseURL, APIKey: p.APIKey,
				Timeout: p.Timeout, FirstByteTimeout: p.FirstByteTimeout, ConnectTimeout: p.ConnectTimeout, StreamIdleTimeout: p.StreamIdleTimeout}))
		default:
			out = append(out, openai.New(openai.Options{
				Name: p.Name, Type: p.Type, BaseURL: p.BaseURL, APIKey: p.APIKey, Headers: p.Headers,
				Timeout: p.Timeout, FirstByteTimeout: p.FirstByteTimeout, ConnectTimeout: p.ConnectTimeout,
				StreamIdleTimeout: p.StreamIdleTimeout, TranslateFunctions: p.Functions == "translate",
			}))
			for _, id := range p.Models {
				entries = addDeployment(entries, catalog.Entry{ID: id, Mode: catalog.ModeChat, Functions: true},
					catalog.Deployment{Provider: p.Name, UpstreamID: id})
			}
		}
	}
	if cfg.Dev && !hasMock {
		out = append(out, mock.New("mock"))
		entries = append(entries, mockEntries("mock")...)
	}
	return out, entries
}

// addDeployment adds e with deployment d, or only d when an entry for the
// same ID is already there (two hosts serving one model).
func addDeployment(entries []catalog.Entry, e catalog.Entry, d catalog.Deployment) []catalog.Entry {
	for i := range entries {
		if entries[i].ID == e.ID {
			entries[i].Deployments = append(entries[i].Deployments, d)
			return entries
		}
	}
	e.Deployments = []catalog.Deployment{d}
	return append(entries, e)
}

// mockEntries returns the mock's models deployed on the named provider.
func mockEntries(name string) []catalog.Entry {
	out := make([]catalog.Entry, len(mock.Models))
	for i, e := range mock.Models {
		e.Deployments = []catalog.Deployment{{Provider: name, UpstreamID: e.ID}}
		out[i] = e
	}
	return out
}

// entry converts a configured model.
func entry(m config.ModelEntry) (catalog.Entry, error) {
	e := catalog.Entry{
		ID: m.ID, Family: m.Family, Mode: catalog.Mode(m.Mode),
		ContextWindow: m.ContextWindow, MaxOutputTokens: m.MaxOutputTokens,
		Functions: m.Functions, Vision: m.Vision, EmbeddingDims: m.EmbeddingDimensions,
	}
	var err error
	if m.InputUSDPerMtok != "" {
		if e.InputPrice, err = catalog.ParsePrice(m.InputUSDPerMtok); err != nil {
			return e, fmt.Errorf("input_usd_per_mtok: %w", err)
		}
	}
	if m.OutputUSDPerMtok != "" {
		if e.OutputPrice, err = catalog.ParsePrice(m.OutputUSDPerMtok); err != nil {
			return e, fmt.Errorf("output_usd_per_mtok: %w", err)
		}
	}
	if m.CachedUSDPerMtok != "" {
		if e.CachedPrice, err = catalog.ParsePrice(m.CachedUSDPerMtok); err != nil {
			return e, fmt.Errorf("cached_input_usd_per_mtok: %w", err)
		}
	}
	for _, d := range m.Deployments {
		e.Deployments = append(e.Deployments, catalog.Deployment{Provider: d.Provider, UpstreamID: d.UpstreamID,
			Weight: d.Weight, Priority: d.Priority, FirstByteTimeout: d.FirstByteTimeout, Timeout: d.Timeout})
	}
	e.Strategy = catalog.Strategy(m.Strategy)
	e.Fallbacks = slices.Clone(m.Fallbacks)
	e.ContextWindowFallbacks = slices.Clone(m.ContextWindowFallbacks)
	return e, nil
}

// checkFallbacks refuses fallbacks that name no model of cat, suggesting
// the close ones, and fallbacks that cannot answer their model's requests
// (an embedding model behind a chat model).
func checkFallbacks(cat *catalog.Catalog, add []config.ModelEntry) error {
	var ids []string
	for _, m := range cat.All() {
		ids = append(ids, m.ID)
	}
	for i, m := range add {
		model, _ := cat.Lookup(m.ID)
		lists := []struct {
			key string
			ids []string
		}{{"fallbacks", m.Fallbacks}, {"context_window_fallbacks", m.ContextWindowFallbacks}}
		for _, l := range lists {
			for j, id := range l.ids {
				if err := fallbackErr(cat, model, id, ids); err != nil {
					return fmt.Errorf("config: models.add[%d].%s[%d]: %w", i, l.key, j, err)
				}
			}
		}
	}
	return nil
}

func fallbackErr(cat *catalog.Catalog, model *catalog.Model, id string, ids []string) error {
	f, ok := cat.Lookup(id)
	if !ok {
		msg := fmt.Sprintf("%q is not a model in the catalogue (see 'switchyard models')", id)
		if close := catalog.Nearest(id, false, ids, 3); len(close) > 0 {
			msg += "; did you mean " + strings.Join(close, ", ") + "?"
		}
		return errors.New(msg)
	}
	if model != nil && !answersAll(f.Mode, model.Mode) {
		return fmt.Errorf("%s is %s model and cannot answer every request %s (%s model) takes", f.ID, article(f.Mode), model.ID, article(model.Mode))
	}
	return nil
}

// article returns "a chat", "an embedding" and so on.
func article(m catalog.Mode) string {
	if m == catalog.ModeEmbedding {
		return "an " + string(m)
	}
	return "a " + string(m)
}

// answersAll reports whether a model of mode f serves every endpoint a
// model of mode m serves: chat models also answer legacy completions.
func answersAll(f, m catalog.Mode) bool {
	switch m {
	case catalog.ModeCompletion:
		return f == catalog.ModeCompletion || f == catalog.ModeChat
	default:
		return f == m
	}
}
