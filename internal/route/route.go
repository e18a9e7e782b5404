// Package route decides where a request for a model goes: the catalogue
// entry, whether the caller may use it, and which configured provider
// serves it.
package route

import (
	"errors"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/provider"
)

// ErrNotFound reports a model that is unknown, retired, not served by any
// configured provider, or not allowed to the caller: all are "Model not
// found" to the client.
var ErrNotFound = errors.New("model not found")

// Target is where one request goes.
type Target struct {
	Model      *catalog.Model
	Provider   provider.Provider
	UpstreamID string
}

// Table routes model IDs. It is immutable and safe for concurrent use.
type Table struct {
	cat    *catalog.Catalog
	byName map[string]provider.Provider
	byType map[string]provider.Provider // the first provider of each type
	now    func() time.Time
	// deps holds each catalogue model's resolved deployments, built once.
	deps map[*catalog.Model][]Deployment
}

// PriceVersion names the catalogue's price sheet.
func (t *Table) PriceVersion() string { return t.cat.PriceVersion() }

// New returns a table over the catalogue and the configured providers.
func New(cat *catalog.Catalog, providers []provider.Provider, now func() time.Time) *Table {
	t := &Table{cat: cat, byName: map[string]provider.Provider{}, byType: map[string]provider.Provider{}, now: now}
	if t.now == nil {
		t.now = time.Now
	}
	for _, p := range providers {
		t.byName[p.Name()] = p
		if _, ok := t.byType[p.Type()]; !ok {
			t.byType[p.Type()] = p
		}
	}
	t.deps = make(map[*catalog.Model][]Deployment)
	for _, m := range cat.All() {
		t.deps[m] = t.resolve(m)
	}
	return t
}

// Catalog returns the catalogue.
func (t *Table) Catalog() *catalog.Catalog { return t.cat }

// Pick returns the target for model id, or ErrNotFound. allowed filters by
// the caller's allow-lists.
func (t *Table) Pick(id string, allowed Allow) (Target, error) {
	m, ok := t.cat.Lookup(id)
	if !ok || m.Retired(t.now()) || !allowed.Permits(id) {
		return Target{}, ErrNotFound
	}
	p, upstream, ok := t.serve(m)
	if !ok {
		return Target{}, ErrNotFound
	}
	return Target{Model: m, Provider: p, UpstreamID: upstream}, nil
}

// serve finds the first deployment of m whose provider is configured: by
// provider name first, else by provider type.
func (t *Table) serve(m *catalog.Model) (provider.Provider, string, bool) {
	for _, d := range m.Deployments {
		if p, ok := t.byName[d.Provider]; ok {
			return p, d.UpstreamID, true
		}
		if p, ok := t.byType[d.Provider]; ok {
			return p, d.UpstreamID, true
		}
	}
	return nil, "", false
}

// Deployment is one configured way to serve a model: a catalogue
// deployment with its provider resolved. Its FirstByteTimeout and Timeout
// are the effective ones: the deployment's own, else its provider's
// (provider.Timeouter); zero only when neither sets one.
type Deployment struct {
	catalog.Deployment
	Provider provider.Provider
	// Key names the deployment in health state, logs and headers:
	// "provider/upstream_id", the same on every replica.
	Key string
}

// Lookup returns the catalogue entry for id when the caller may use it and
// it is not retired, or ErrNotFound. Unlike Pick it does not ask whether
// a provider serves it.
func (t *Table) Lookup(id string, allowed Allow) (*catalog.Model, error) {
	m, ok := t.cat.Lookup(id)
	if !ok || m.Retired(t.now()) || !allowed.Permits(id) {
		return nil, ErrNotFound
	}
	return m, nil
}

// Deployments returns m's deployments whose provider is configured, in
// catalogue order, each resolved by provider name first, else by type.
// The slice is the table's: callers must not modify it.
func (t *Table) Deployments(m *catalog.Model) []Deployment {
	if ds, ok := t.deps[m]; ok {
		return ds
	}
	return t.resolve(m)
}

func (t *Table) resolve(m *catalog.Model) []Deployment {
	var out []Deployment
	for _, d := range m.Deployments {
		p, ok := t.byName[d.Provider]
		if !ok {
			p, ok = t.byType[d.Provider]
		}
		if ok {
			out = append(out, Deployment{Deployment: withTimeouts(d, p), Provider: p, Key: p.Name() + "/" + d.UpstreamID})
		}
	}
	return out
}

// withTimeouts fills d's unset timeouts from its provider's. The first
// byte never waits longer than the whole call; a provider whose first
// byte bound is not shorter than its total has none of its own, so a
// deployment that sets only its timeout gets that as its first byte's.
func withTimeouts(d catalog.Deployment, p provider.Provider) catalog.Deployment {
	var pt provider.Timeouts
	if tp, ok := p.(provider.Timeouter); ok {
		pt = tp.Timeouts()
	}
	if d.Timeout == 0 {
		d.Timeout = pt.Total
	}
	if d.FirstByteTimeout == 0 && pt.FirstByte < pt.Total {
		d.FirstByteTimeout = pt.FirstByte
	}
	if d.Timeout > 0 && (d.FirstByteTimeout == 0 || d.FirstByteTimeout > d.Timeout) {
		d.FirstByteTimeout = d.Timeout
	}
	return d
}

// Reachable reports whether a configured provider serves m, and which.
func (t *Table) Reachable(m *catalog.Model) (provider.Provider, bool) {
	p, _, ok := t.serve(m)
	return p, ok
}

// Status is what a catalogue model is to this gateway now.
type Status string

// Statuses of a model, as `switchyard models` and the operator pages
// show them.
const (
	StatusAvailable   Status = "available"
	StatusDeprecated  Status = "available (deprecated)" // under notice of retirement
	StatusUnreachable Status = "unreachable"            // no configured provider serves it
	StatusRetired     Status = "retired"
)

// Status returns m's status and, when reachable, the provider that
// serves it.
func (t *Table) Status(m *catalog.Model) (Status, provider.Provider) {
	p, reachable := t.Reachable(m)
	now := t.now()
	switch {
	case m.Retired(now):
		return StatusRetired, p
	case !reachable:
		return StatusUnreachable, nil
	case m.UnderNotice(now):
		return StatusDeprecated, p
	}
	return StatusAvailable, p
}

// Providers returns the configured providers, sorted by name.
func (t *Table) Providers() []provider.Provider {
	out := make([]provider.Provider, 0, len(t.byName))
	for _, p := range t.byName {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b provider.Provider) int { return strings.Compare(a.Name(), b.Name()) })
	return out
}

// Available returns the models the caller may use now, in catalogue order.
func (t *Table) Available(allowed Allow) []*catalog.Model {
	var out []*catalog.Model
	now := t.now()
	for _, m := range t.cat.All() {
		if m.Retired(now) || !allowed.Permits(m.ID) {
			continue
		}
		if _, _, ok := t.serve(m); ok {
			out = append(out, m)
		}
	}
	return out
}

// Allow holds the allow-lists that apply to a caller: the account's and
// the key's. An empty list permits every model. An entry ending in "*"
// permits every ID with that prefix.
type Allow struct {
	Account []string
	Key     []string
}

// ParseAllowList splits an allow-list typed with commas or white space
// into its entries: model IDs, or prefixes ending in one "*". It returns
// the first entry that is neither, if any: one with a quote, a space or
// control character, bytes that are not UTF-8, or a "*" elsewhere than at
// its end. The CLI's --models and the dashboard's forms share it.
func ParseAllowList(s string) (list []string, bad string) {
	for _, m := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || unicode.IsSpace(r) }) {
		if !validPattern(m) {
			return nil, m
		}
		list = append(list, m)
	}
	return list, ""
}

func validPattern(m string) bool {
	if !utf8.ValidString(m) || strings.Count(m, "*") > 1 || strings.Contains(m, "*") && !strings.HasSuffix(m, "*") {
		return false
	}
	for _, r := range m {
		if r == '"' || !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// Permits reports whether both lists permit id.
func (a Allow) Permits(id string) bool {
	return permits(a.Account, id) && permits(a.Key, id)
}

func permits(list []string, id string) bool {
	if len(list) == 0 {
		return true
	}
	for _, p := range list {
		if p == id || (strings.HasSuffix(p, "*") && strings.HasPrefix(id, p[:len(p)-1])) {
			return true
		}
	}
	return false
}
