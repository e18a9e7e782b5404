package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/switchyard-gw/switchyard/internal/app"
	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/route"
)

func runModels(ctx context.Context, env Env, args []string) error {
	fs, cfgPath := newFlags(env, "models")
	asJSON := jsonFlag(fs)
	dev := fs.Bool("dev", false, "include the mock provider, as serve --dev does")
	check := fs.Bool("check", false, "probe each configured provider (a free models list) and report wrong base URLs and refused keys; exit status 1 when one fails")
	if err := parse(fs, args, 0); err != nil {
		return err
	}
	cfg, err := loadConfig(env, *cfgPath)
	if err != nil {
		return err
	}
	cfg.Dev = *dev
	routes, err := app.Routes(cfg, time.Now)
	if err != nil {
		return err
	}
	rows := modelRows(routes)
	var checks []providerCheck
	failed := 0
	if *check {
		var misconfigured map[string]bool
		checks = checkProviders(ctx, routes.Providers())
		failed, misconfigured = failedChecks(checks)
		for i := range rows {
			if misconfigured[rows[i].Provider] {
				rows[i].Status = checkMisconfigured
			}
		}
	}
	if err := printModels(env, rows, checks, *asJSON, *check); err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("%d provider(s) failed the check", failed)
	}
	return nil
}

// modelRow is one model of `switchyard models`.
type modelRow struct {
	ID       string `json:"id"`
	Family   string `json:"family"`
	Mode     string `json:"mode"`
	Provider string `json:"provider"`
	Status   string `json:"status"`
	Input    string `json:"input_usd_per_mtok"`
	Output   string `json:"output_usd_per_mtok"`
	Cached   string `json:"cached_input_usd_per_mtok,omitempty"`
	// LongAbove is the prompt size above which the long-context prices
	// apply to a whole request; 0 when the model has none.
	LongAbove  int    `json:"long_context_above_tokens,omitempty"`
	LongInput  string `json:"long_input_usd_per_mtok,omitempty"`
	LongOutput string `json:"long_output_usd_per_mtok,omitempty"`
	Sunset     string `json:"sunset_on,omitempty"`
	// Deployments are the configured ways to serve the model (none when
	// it is unreachable); Strategy picks among those of one priority.
	Deployments            []deploymentRow `json:"deployments"`
	Strategy               string          `json:"strategy"`
	Fallbacks              []string        `json:"fallbacks"`
	ContextWindowFallbacks []string        `json:"context_window_fallbacks"`
}

// deploymentRow is one deployment of a model, with its effective
// timeouts.
type deploymentRow struct {
	Provider         string `json:"provider"`
	UpstreamID       string `json:"upstream_id"`
	Weight           int    `json:"weight"`
	Priority         int    `json:"priority"`
	FirstByteTimeout string `json:"first_byte_timeout,omitempty"`
	Timeout          string `json:"timeout,omitempty"`
}

// routed reports whether r's routing says more than "one deployment":
// the models `switchyard models` lists under ROUTING.
func (r modelRow) routed() bool {
	return len(r.Deployments) > 1 || len(r.Fallbacks) > 0 || len(r.ContextWindowFallbacks) > 0
}

// modelRows lists the catalogue with each model's status and provider.
func modelRows(routes *route.Table) []modelRow {
	var rows []modelRow
	for _, m := range routes.Catalog().All() {
		r := modelRow{ID: m.ID, Family: m.Family, Mode: string(m.Mode), Input: m.InputPrice.String(), Output: m.OutputPrice.String()}
		if m.Mode != catalog.ModeEmbedding {
			r.Cached = m.CachedPrice().String()
		}
		if lc := m.LongContext; lc.Above > 0 {
			r.LongAbove, r.LongInput, r.LongOutput = lc.Above, lc.InputPrice.String(), lc.OutputPrice.String()
		}
		if !m.SunsetOn.IsZero() {
			r.Sunset = m.SunsetOn.Format(time.DateOnly)
		}
		status, p := routes.Status(m)
		r.Status = string(status)
		if p != nil {
			r.Provider = p.Name()
		}
		if m.Mode == catalog.ModeEmbedding {
			r.Output = "-"
		}
		r.Deployments, r.Strategy = deploymentRows(routes.Deployments(m)), string(m.Strategy)
		if r.Strategy == "" {
			r.Strategy = string(catalog.StrategyWeighted)
		}
		r.Fallbacks, r.ContextWindowFallbacks = nonNil(m.Fallbacks), nonNil(m.ContextWindowFallbacks)
		rows = append(rows, r)
	}
	return rows
}

func deploymentRows(ds []route.Deployment) []deploymentRow {
	out := make([]deploymentRow, 0, len(ds))
	for _, d := range ds {
		r := deploymentRow{Provider: d.Provider.Name(), UpstreamID: d.UpstreamID, Weight: max(d.Weight, 1), Priority: d.Priority}
		if d.FirstByteTimeout > 0 {
			r.FirstByteTimeout = d.FirstByteTimeout.String()
		}
		if d.Timeout > 0 {
			r.Timeout = d.Timeout.String()
		}
		out = append(out, r)
	}
	return out
}

// nonNil returns s, or an empty list for nil (JSON [] rather than null).
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// printModels writes the models' table, then the providers' checks when
// made; --json writes {"models": [...], "providers": [...]} with --check,
// else the list of models.
func printModels(env Env, rows []modelRow, checks []providerCheck, asJSON, checked bool) error {
	switch {
	case asJSON && checked:
		return printJSON(env.Stdout, map[string]any{"models": rows, "providers": checks})
	case asJSON:
		return printJSON(env.Stdout, rows)
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MODEL\tFAMILY\tMODE\tPROVIDER\tSTATUS\tINPUT $/MTOK\tOUTPUT $/MTOK\tSUNSET")
	for _, r := range rows {
		prov, sunset := r.Provider, r.Sunset
		if prov == "" {
			prov = "-"
		}
		if sunset == "" {
			sunset = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.Family, r.Mode, prov, r.Status, r.Input, r.Output, sunset)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if err := printRouting(env.Stdout, rows); err != nil || !checked {
		return err
	}
	fmt.Fprintln(env.Stdout)
	return printChecks(env.Stdout, checks)
}

// printRouting writes the deployments and fallbacks of the models that
// have more than one deployment or any fallback, one line a deployment.
func printRouting(w io.Writer, rows []modelRow) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	header := false
	for _, r := range rows {
		if !r.routed() {
			continue
		}
		if !header {
			fmt.Fprintln(tw, "\nROUTING\tSTRATEGY\tPROVIDER\tUPSTREAM ID\tWEIGHT\tPRIORITY\tFALLBACKS")
			header = true
		}
		fallbacks := strings.Join(r.Fallbacks, ", ")
		if len(r.ContextWindowFallbacks) > 0 {
			fallbacks = strings.TrimPrefix(fallbacks+"; context window: "+strings.Join(r.ContextWindowFallbacks, ", "), "; ")
		}
		if fallbacks == "" {
			fallbacks = "-"
		}
		ds := r.Deployments
		if len(ds) == 0 {
			ds = []deploymentRow{{Provider: "-", UpstreamID: "-"}}
		}
		for i, d := range ds {
			model, strategy, fb := r.ID, r.Strategy, fallbacks
			if i > 0 { // the model's other deployments: only theirs
				model, strategy, fb = "", "", ""
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%s\n", model, strategy, d.Provider, d.UpstreamID, d.Weight, d.Priority, fb)
		}
	}
	return tw.Flush()
}
