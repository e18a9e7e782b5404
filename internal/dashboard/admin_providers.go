package dashboard

import (
	"net/http"
	"net/url"
	"time"

	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/config"
	"github.com/switchyard-gw/switchyard/internal/route"
)

// providerRow is one configured provider. Its upstream key is never
// shown, only whether one is set.
type providerRow struct {
	Name, Type, BaseURL string
	HasKey              bool
	BuiltIn             bool // the mock of serve --dev
	Models              int  // catalogue models it serves now
}

// modelRow is one catalogue model and what this gateway makes of it.
type modelRow struct {
	*catalog.Model
	Status   route.Status
	Provider string // "" when unreachable
}

// providersPage is the data of the operator's providers page.
type providersPage struct {
	Providers    []providerRow
	Models       []modelRow
	Reachable    int
	PriceVersion string
	Deployments  deploymentsSection
	Health       healthSection // of every account, latency per deployment
}

// adminProviders shows the configured providers, the deployments of every
// reachable model with their health, and every catalogue model with its
// status, as `switchyard models` does.
func (d *Dashboard) adminProviders(w http.ResponseWriter, r *http.Request, s *session) {
	var p providersPage
	if t := d.table(); t != nil {
		p = providersOf(t, d.providers)
		p.Deployments = deploymentsOf(t, d.health, d.now())
	}
	h, err := d.recentHealth(r.Context(), "", "deployment")
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	p.Health = h
	d.render(w, r, http.StatusOK, "admin_providers", d.page(r, s, "admin-providers", "Providers and models", p))
}

// table returns the routing table now; nil when there is none.
func (d *Dashboard) table() *route.Table {
	if d.routing == nil {
		return nil
	}
	return d.routing()
}

// providersOf describes the routing table; configured gives the base
// URLs and keys of the providers that came from the configuration.
func providersOf(t *route.Table, configured []config.Provider) providersPage {
	p := providersPage{PriceVersion: t.PriceVersion()}
	served := map[string]int{}
	for _, m := range t.Catalog().All() {
		status, prov := t.Status(m)
		row := modelRow{Model: m, Status: status}
		if prov != nil && status != route.StatusRetired {
			row.Provider = prov.Name()
			served[row.Provider]++
			p.Reachable++
		}
		p.Models = append(p.Models, row)
	}
	for _, prov := range t.Providers() {
		row := providerRow{Name: prov.Name(), Type: prov.Type(), Models: served[prov.Name()], BuiltIn: true}
		for _, c := range configured {
			if c.Name == prov.Name() {
				row.BaseURL, row.HasKey, row.BuiltIn = redactURL(c.BaseURL), c.APIKey != "", false
			}
		}
		p.Providers = append(p.Providers, row)
	}
	return p
}

// redactURL returns a base URL without what may be a credential: the
// user information and the query.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(not shown: not a valid URL)"
	}
	if u.User != nil {
		u.User = url.User("redacted")
	}
	if u.RawQuery != "" {
		u.RawQuery = "redacted"
	}
	u.Fragment = ""
	return u.String()
}

// sunset formats a model's retirement day; "" when none is announced.
func sunset(m *catalog.Model) string {
	if m.SunsetOn.IsZero() {
		return ""
	}
	return m.SunsetOn.UTC().Format(time.DateOnly)
}
