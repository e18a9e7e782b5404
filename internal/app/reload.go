package app

import (
	"reflect"

	"github.com/switchyard-gw/switchyard/internal/config"
)

// Reload applies what of cfg can change while serving: the providers,
// the models the configuration adds or changes (deployments, strategies,
// fallbacks) and the routing section. It builds and checks the new
// routing table first and changes nothing when that fails, so a bad file
// leaves the running configuration in place. Requests in flight finish
// on the table they started with. Other settings that differ from the
// running ones are logged as needing a restart and keep their running
// values. The serve command calls it on SIGHUP.
func (a *App) Reload(cfg *config.Config) error {
	a.reloadMu.Lock()
	defer a.reloadMu.Unlock()
	routes, err := Routes(cfg, a.now)
	if err != nil {
		return err
	}
	a.gateway.SetRoutes(routes)
	a.gateway.SetRouting(gatewayRouting(cfg.Routing))
	a.health.SetConfig(healthConfig(cfg.Routing))
	for _, key := range restartNeeded(a.live, cfg) {
		a.log.Warn("config change needs a restart; the running value stays", "key", key)
	}
	next := *a.live
	next.Providers, next.Models.Add, next.Routing = cfg.Providers, cfg.Models.Add, cfg.Routing
	a.live = &next
	a.log.Info("config reloaded", "providers", len(cfg.Providers), "models_added", len(cfg.Models.Add),
		"price_version", routes.PriceVersion())
	return nil
}

// restartNeeded returns the keys of the settings that differ between old
// and cfg and cannot change while serving: every section but providers,
// models.add and routing.
func restartNeeded(old, cfg *config.Config) []string {
	var keys []string
	o, n := reflect.ValueOf(*old), reflect.ValueOf(*cfg)
	for i := range o.NumField() {
		f := o.Type().Field(i)
		key := f.Tag.Get("yaml")
		switch key {
		case "providers", "routing", "-":
			continue
		case "models":
			if old.Models.Listing != cfg.Models.Listing {
				keys = append(keys, "models.listing")
			}
			continue
		}
		if !reflect.DeepEqual(o.Field(i).Interface(), n.Field(i).Interface()) {
			keys = append(keys, key)
		}
	}
	if old.Dev != cfg.Dev {
		keys = append(keys, "serve --dev")
	}
	return keys
}
