package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/switchyard-gw/switchyard/internal/app"
	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/route"
)

// maxSuggestions is how many close matches a refusal names.
const maxSuggestions = 3

// modelList parses a --models allow-list and checks it against the
// catalogue (the configured one, with the mock's models that serve --dev
// adds): each entry must be a model ID in it, or a prefix ending in *
// that matches one; "all" and "*" pass. A refusal names the close
// matches.
func modelList(env Env, cfgPath, s string) ([]string, error) {
	list, bad := route.ParseAllowList(s)
	if bad != "" {
		return nil, usageErr("--models: %q is not a model ID (a single trailing * may match a prefix)", bad)
	}
	if len(list) == 0 || len(list) == 1 && list[0] == "all" {
		return list, nil
	}
	cfg, err := loadConfig(env, cfgPath)
	if err != nil {
		return nil, err
	}
	cfg.Dev = true
	routes, err := app.Routes(cfg, time.Now)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, m := range routes.Catalog().All() {
		ids = append(ids, m.ID)
	}
	for _, m := range list {
		if msg := unknownModel(m, ids); msg != "" {
			return nil, usageErr("--models: %s", msg)
		}
	}
	return list, nil
}

// unknownModel returns why allow-list entry m names no model of ids, or
// "" when it names one.
func unknownModel(m string, ids []string) string {
	prefix, glob := strings.CutSuffix(m, "*")
	for _, id := range ids {
		if id == m || glob && strings.HasPrefix(id, prefix) {
			return ""
		}
	}
	what := "is not a model in the catalogue"
	if glob {
		what = "matches no model in the catalogue"
	}
	msg := fmt.Sprintf("%q %s (see 'switchyard models')", m, what)
	if close := catalog.Nearest(prefix, glob, ids, maxSuggestions); len(close) > 0 {
		msg += "; did you mean " + strings.Join(close, ", ") + "?"
	}
	return msg
}
