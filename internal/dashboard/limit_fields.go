package dashboard

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/usd"
)

// limitFields are the rate-limit and budget fields of a form, as typed:
// on the new-key form, the key-limits form and the operator's account
// form.
type limitFields struct {
	RPM, TPM, Budget string
}

// rateDefaults are the configured rate limits that apply where a key or
// account has none of its own, for the forms' hints.
type rateDefaults struct{ RPM, TPM int64 }

func (d *Dashboard) keyDefaults() rateDefaults {
	return rateDefaults{d.limits.KeyRPM, d.limits.KeyTPM}
}

func (d *Dashboard) accountDefaults() rateDefaults {
	return rateDefaults{d.limits.AccountRPM, d.limits.AccountTPM}
}

// readLimitFields reads the fields rpm, tpm and budget of a parsed form.
func readLimitFields(r *http.Request) limitFields {
	return limitFields{RPM: strings.TrimSpace(r.PostForm.Get("rpm")), TPM: strings.TrimSpace(r.PostForm.Get("tpm")),
		Budget: strings.TrimSpace(r.PostForm.Get("budget"))}
}

// limitFieldsOf returns stored limits as a form shows them: empty where
// none of its own is set.
func limitFieldsOf(l store.Limits) limitFields {
	var f limitFields
	if l.RPM > 0 {
		f.RPM = strconv.FormatInt(l.RPM, 10)
	}
	if l.TPM > 0 {
		f.TPM = strconv.FormatInt(l.TPM, 10)
	}
	if l.MonthlyBudget > 0 {
		f.Budget = l.MonthlyBudget.String()
	}
	return f
}

// parse returns the typed limits, recording a message by field in errs
// for each that is not valid. Empty and 0 both give 0: no limit of its
// own (the configured default applies; no budget).
func (f limitFields) parse(errs map[string]string) (rpm, tpm int64, budget usd.Amount) {
	rpm = count(errs, "rpm", f.RPM)
	tpm = count(errs, "tpm", f.TPM)
	if f.Budget != "" {
		a, err := usd.Parse(f.Budget)
		if err != nil || a < 0 {
			errs["budget"] = "Enter an amount in US dollars, such as 25 or 12.50, or leave it empty for no budget."
		} else {
			budget = a
		}
	}
	return rpm, tpm, budget
}

// update returns the limits as a change that sets all three: what is
// empty or 0 is cleared.
func (f limitFields) update(errs map[string]string) store.LimitsUpdate {
	rpm, tpm, budget := f.parse(errs)
	return store.LimitsUpdate{RPM: &rpm, TPM: &tpm, MonthlyBudget: &budget}
}

// maxRate is the largest rate limit a form accepts: a billion a minute
// is far beyond any real limit, and keeps the limiter's arithmetic safe.
const maxRate = 1_000_000_000

// count parses an optional rate limit: a whole number from 0 to maxRate.
func count(errs map[string]string, field, v string) int64 {
	if v == "" {
		return 0
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 || n > maxRate {
		errs[field] = "Enter a whole number up to 1,000,000,000, or leave it empty for the default."
		return 0
	}
	return n
}
