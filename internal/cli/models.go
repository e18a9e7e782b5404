package cli

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/switchyard-gw/switchyard/internal/app"
	"github.com/switchyard-gw/switchyard/internal/catalog"
)

func runModels(ctx context.Context, env Env, args []string) error {
	fs, cfgPath := newFlags(env, "models")
	asJSON := jsonFlag(fs)
	dev := fs.Bool("dev", false, "include the mock provider, as serve --dev does")
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
	type row struct {
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
	}
	var rows []row
	for _, m := range routes.Catalog().All() {
		r := row{ID: m.ID, Family: m.Family, Mode: string(m.Mode), Input: m.InputPrice.String(), Output: m.OutputPrice.String()}
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
		rows = append(rows, r)
	}
	if *asJSON {
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
	return tw.Flush()
}
