package catalog

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
)

//go:embed models.csv
var builtinCSV string

// Catalog is an immutable set of models, safe for concurrent use.
type Catalog struct {
	models []*Model // in file order, then models added by With
	byID   map[string]*Model
	prices string // PriceVersion
}

// newCatalog indexes models, whose IDs must be unique.
func newCatalog(models []*Model) *Catalog {
	c := &Catalog{models: models, byID: make(map[string]*Model, len(models))}
	h := sha256.New()
	for _, m := range models {
		c.byID[m.ID] = m
		fmt.Fprintf(h, "%s\x00%d\x00%d", m.ID, m.InputPrice, m.OutputPrice)
		if m.CachedInputPrice != 0 {
			fmt.Fprintf(h, "\x00%d", m.CachedInputPrice)
		}
		if lc := m.LongContext; lc.Above != 0 {
			fmt.Fprintf(h, "\x00%d\x00%d\x00%d\x00%d", lc.Above, lc.InputPrice, lc.OutputPrice, lc.CachedInputPrice)
		}
		h.Write([]byte{'\n'})
	}
	c.prices = "prices-" + hex.EncodeToString(h.Sum(nil))[:12]
	return c
}

// PriceVersion names the catalogue's price sheet: a digest of every
// model's ID and prices, so it changes exactly when a price (built-in or
// configured) changes. Usage records keep it beside the prices they used.
func (c *Catalog) PriceVersion() string { return c.prices }

// Builtin parses the embedded models.csv. An error names the line and
// column at fault.
func Builtin() (*Catalog, error) {
	c, err := Parse(strings.NewReader(builtinCSV))
	if err != nil {
		return nil, fmt.Errorf("models.csv: %w", err)
	}
	return c, nil
}

// Lookup returns the model with exactly this ID (case-sensitive). Retired
// models are found too; see Model.Retired.
func (c *Catalog) Lookup(id string) (*Model, bool) {
	m, ok := c.byID[id]
	return m, ok
}

// All returns the models in file order, followed by models added by With.
// The slice is the caller's; the models are shared and must not be
// modified.
func (c *Catalog) All() []*Model {
	return slices.Clone(c.models)
}
