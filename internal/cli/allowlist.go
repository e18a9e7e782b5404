package cli

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/switchyard-gw/switchyard/internal/app"
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
	if close := closeMatches(prefix, glob, ids); len(close) > 0 {
		msg += "; did you mean " + strings.Join(close, ", ") + "?"
	}
	return msg
}

// closeMatches returns the IDs of ids nearest to s by edit distance, or
// for a prefix the nearest prefixes of IDs (as long as s or one
// byte longer, with their *; the longer first on a tie), at most
// maxSuggestions, each within a third of s's length.
func closeMatches(s string, glob bool, ids []string) []string {
	type cand struct {
		name string
		d    int
	}
	var cands []cand
	seen := map[string]bool{}
	consider := func(name, against string) {
		if d := editDistance(s, against); d <= max(1, len(s)/3) && !seen[name] {
			seen[name] = true
			cands = append(cands, cand{name, d})
		}
	}
	for _, id := range ids {
		if !glob {
			consider(id, id)
			continue
		}
		for k := len(s) + 1; k >= max(1, len(s)); k-- {
			if k <= len(id) {
				consider(id[:k]+"*", id[:k])
			}
		}
	}
	slices.SortStableFunc(cands, func(a, b cand) int {
		if a.d != b.d {
			return a.d - b.d
		}
		return len(b.name) - len(a.name)
	})
	out := make([]string, 0, maxSuggestions)
	for _, c := range cands[:min(len(cands), maxSuggestions)] {
		out = append(out, c.name)
	}
	return out
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
