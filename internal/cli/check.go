package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"text/tabwriter"
	"time"

	"github.com/switchyard-gw/switchyard/internal/provider"
)

// probeTimeout bounds the probe of one provider.
const probeTimeout = 10 * time.Second

// The outcomes of a provider's probe.
const (
	checkOK            = "ok"
	checkMisconfigured = "misconfigured"
	checkCredentials   = "credentials-refused"
	checkUnreachable   = "unreachable"
	checkFailed        = "failed"
	checkBuiltIn       = "built-in"
)

// providerCheck is what `models --check` learnt of one provider. Detail
// names the upstream path and status, never the base URL or the key.
type providerCheck struct {
	Name   string `json:"name"`
	Type   string `json:"type"`
	Check  string `json:"check"`
	Detail string `json:"detail,omitempty"`
}

// checkProviders probes each provider that can be probed, one after the
// other.
func checkProviders(ctx context.Context, ps []provider.Provider) []providerCheck {
	out := make([]providerCheck, 0, len(ps))
	for _, p := range ps {
		c := providerCheck{Name: p.Name(), Type: p.Type(), Check: checkBuiltIn}
		if pr, ok := p.(provider.Prober); ok {
			pctx, cancel := context.WithTimeout(ctx, probeTimeout)
			c.Check, c.Detail = probeOutcome(pr.Probe(pctx))
			cancel()
		}
		out = append(out, c)
	}
	return out
}

// probeOutcome classifies a probe's error.
func probeOutcome(err error) (check, detail string) {
	var pe *provider.Error
	switch {
	case err == nil:
		return checkOK, ""
	case !errors.As(err, &pe):
		return checkFailed, err.Error()
	case pe.Kind == provider.KindNoEndpoint:
		return checkMisconfigured, fmt.Sprintf("GET %s answered %d: the base URL is probably wrong (an OpenAI-compatible one ends in /v1 or the host's equivalent)", pe.Path, pe.Status)
	case pe.Kind == provider.KindAuth:
		return checkCredentials, fmt.Sprintf("GET %s answered %d: %s", pe.Path, pe.Status, pe.Message)
	case pe.Status == 0:
		return checkUnreachable, transportCause(pe.Err)
	}
	return checkFailed, fmt.Sprintf("GET %s answered %d: %s", pe.Path, pe.Status, pe.Message)
}

// transportCause is a transport error without the URL it names, which
// may carry credentials.
func transportCause(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	if err == nil {
		return "no answer"
	}
	return err.Error()
}

// failedChecks counts the providers whose probe failed, and lists the
// misconfigured ones by name.
func failedChecks(checks []providerCheck) (n int, misconfigured map[string]bool) {
	misconfigured = map[string]bool{}
	for _, c := range checks {
		if c.Check != checkOK && c.Check != checkBuiltIn {
			n++
		}
		if c.Check == checkMisconfigured {
			misconfigured[c.Name] = true
		}
	}
	return n, misconfigured
}

// printChecks writes the providers' table.
func printChecks(w io.Writer, checks []providerCheck) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PROVIDER\tTYPE\tCHECK\tDETAIL")
	for _, c := range checks {
		d := c.Detail
		if d == "" {
			d = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", c.Name, c.Type, c.Check, d)
	}
	return tw.Flush()
}
