package catalog

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
)

// Entry is a model added or changed by configuration. When ID names a model
// already in the catalogue, the entry's non-zero fields override it (so a
// bool can be turned on but not off) and Deployments, when non-empty,
// replace its deployments. A new ID needs Mode and at least one deployment.
type Entry struct {
	ID              string
	Family          string
	Mode            Mode
	InputPrice      Price
	OutputPrice     Price
	CachedPrice     Price
	ContextWindow   int
	MaxOutputTokens int
	Functions       bool
	Vision          bool
	EmbeddingDims   int
	Created         time.Time // the created field of GET /v1/models; zero = unknown
	Deployments     []Deployment
	// Strategy, Fallbacks and ContextWindowFallbacks, when set, replace
	// the model's.
	Strategy               Strategy
	Fallbacks              []string
	ContextWindowFallbacks []string
}

// With returns a new catalogue with the entries applied in order, so a
// later entry for the same ID applies on top of an earlier one. The
// receiver is unchanged. An error names the entry at fault by its index,
// as in "models.add[2]: mode must be chat, completion or embedding".
func (c *Catalog) With(entries []Entry) (*Catalog, error) {
	models := slices.Clone(c.models)
	index := make(map[string]int, len(models)+len(entries)) // id → position in models
	for i, m := range models {
		index[m.ID] = i
	}
	for i, e := range entries {
		if err := e.apply(&models, index); err != nil {
			return nil, fmt.Errorf("models.add[%d]: %w", i, err)
		}
	}
	return newCatalog(models), nil
}

// apply adds e to models, or overrides the model it names.
func (e *Entry) apply(models *[]*Model, index map[string]int) error {
	if err := e.validate(); err != nil {
		return err
	}
	if i, ok := index[e.ID]; ok {
		(*models)[i] = e.override((*models)[i])
		return nil
	}
	if e.Mode == "" {
		return fmt.Errorf("new model %q needs a mode (chat, completion or embedding)", e.ID)
	}
	if len(e.Deployments) == 0 {
		return fmt.Errorf("new model %q needs at least one deployment", e.ID)
	}
	d := e.Deployments[0]
	index[e.ID] = len(*models)
	*models = append(*models, e.override(&Model{ID: e.ID, Provider: d.Provider, UpstreamID: d.UpstreamID}))
	return nil
}

// validate checks the entry's own fields.
func (e *Entry) validate() error {
	switch {
	case e.ID == "":
		return errors.New("id is required")
	case strings.ContainsFunc(e.ID, unicode.IsSpace):
		return fmt.Errorf("id %q contains white space", e.ID)
	case e.Mode != "" && !e.Mode.valid():
		return errors.New("mode must be chat, completion or embedding")
	case e.InputPrice < 0:
		return errors.New("input_usd_per_mtok must not be negative")
	case e.OutputPrice < 0:
		return errors.New("output_usd_per_mtok must not be negative")
	case e.CachedPrice < 0:
		return errors.New("cached_input_usd_per_mtok must not be negative")
	case e.ContextWindow < 0:
		return errors.New("context_window must not be negative")
	case e.MaxOutputTokens < 0:
		return errors.New("max_output_tokens must not be negative")
	case e.EmbeddingDims < 0:
		return errors.New("embedding_dimensions must not be negative")
	case !e.Strategy.Valid():
		return fmt.Errorf("strategy must be weighted, least-busy or latency, got %q", e.Strategy)
	}
	for i, f := range e.Fallbacks {
		if f == "" || f == e.ID {
			return fmt.Errorf("fallbacks[%d]: expected another model's ID, got %q", i, f)
		}
	}
	for i, f := range e.ContextWindowFallbacks {
		if f == "" || f == e.ID {
			return fmt.Errorf("context_window_fallbacks[%d]: expected another model's ID, got %q", i, f)
		}
	}
	for i, d := range e.Deployments {
		if d.Provider == "" {
			return fmt.Errorf("deployments[%d]: provider is required", i)
		}
		if d.UpstreamID == "" {
			return fmt.Errorf("deployments[%d]: upstream_id is required", i)
		}
		if d.Weight < 0 {
			return fmt.Errorf("deployments[%d]: weight must not be negative", i)
		}
		if d.FirstByteTimeout < 0 || d.Timeout < 0 {
			return fmt.Errorf("deployments[%d]: timeouts must not be negative", i)
		}
	}
	return nil
}

// override returns a copy of m with the entry's non-zero fields set.
func (e *Entry) override(m *Model) *Model {
	c := *m
	set(&c.Family, e.Family)
	set(&c.Mode, e.Mode)
	set(&c.InputPrice, e.InputPrice)
	set(&c.OutputPrice, e.OutputPrice)
	set(&c.CachedInputPrice, e.CachedPrice)
	if e.InputPrice != 0 || e.OutputPrice != 0 || e.CachedPrice != 0 {
		// Configured prices apply to every request: the built-in
		// long-context prices were the vendor's list prices.
		c.LongContext = LongContext{}
	}
	set(&c.ContextWindow, e.ContextWindow)
	set(&c.MaxOutputTokens, e.MaxOutputTokens)
	set(&c.Functions, e.Functions)
	set(&c.Vision, e.Vision)
	set(&c.EmbeddingDims, e.EmbeddingDims)
	if !e.Created.IsZero() {
		c.Created = e.Created
	}
	if len(e.Deployments) > 0 {
		c.Deployments = slices.Clone(e.Deployments)
	}
	set(&c.Strategy, e.Strategy)
	if len(e.Fallbacks) > 0 {
		c.Fallbacks = slices.Clone(e.Fallbacks)
	}
	if len(e.ContextWindowFallbacks) > 0 {
		c.ContextWindowFallbacks = slices.Clone(e.ContextWindowFallbacks)
	}
	return &c
}

// set stores v in *dst unless v is the zero value.
func set[T comparable](dst *T, v T) {
	var zero T
	if v != zero {
		*dst = v
	}
}
