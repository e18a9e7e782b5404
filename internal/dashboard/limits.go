package dashboard

import (
	"net/http"

	"github.com/switchyard-gw/switchyard/internal/limits"
	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/usd"
)

// rate is a rate limit as enforced: Value 0 is unlimited; Default says
// it is the configured default, the account or key having none of its
// own.
type rate struct {
	Value   int64
	Default bool
	// Used is how much of it is taken now (units charged in the last
	// minute and not yet returned); Known reports whether it was read.
	Used  int64
	Known bool
}

// limitRow is the limits and this month's spend of the account or one
// key.
type limitRow struct {
	Name    string
	Key     *store.Key // nil for the account
	RPM     rate
	TPM     rate
	Budget  usd.Amount // 0: none
	Spend   usd.Amount
	Percent int64
}

// limitsPage is the data of the limits page.
type limitsPage struct {
	Month    string
	Account  limitRow
	Keys     []limitRow // active keys, oldest first
	Metering bool
}

func (d *Dashboard) limitsPage(w http.ResponseWriter, r *http.Request, s *session) {
	now := d.now().UTC()
	acctSpend, _, err := d.store.MonthSpend(r.Context(), s.AccountID, "", now.Format("2006-01"))
	var keys []store.Key
	var byKey []store.UsageRow
	if err == nil {
		keys, err = d.store.ListKeys(r.Context(), s.AccountID)
	}
	if err == nil {
		byKey, err = d.store.UsageSummary(r.Context(), store.UsageQuery{AccountID: s.AccountID,
			Since: firstOfMonth(now), Until: dayOf(now), By: "key"})
	}
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	keySpend := map[string]usd.Amount{}
	for _, row := range byKey {
		keySpend[row.KeyID] = row.Cost
	}
	p := limitsPage{Month: now.Format("January 2006"), Metering: d.metering,
		Account: newLimitRow("This account", nil, s.Account.Limits, acctSpend, d.limits.AccountRPM, d.limits.AccountTPM)}
	d.readUse(r, &p.Account, limits.Subject{AccountID: s.AccountID, AccountRPM: p.Account.RPM.Value, AccountTPM: p.Account.TPM.Value})
	for i, k := range keys {
		if k.Status == store.KeyActive {
			row := newLimitRow(k.Name, &keys[i], k.Limits, keySpend[k.ID], d.limits.KeyRPM, d.limits.KeyTPM)
			d.readUse(r, &row, limits.Subject{AccountID: s.AccountID, KeyID: k.ID, KeyRPM: row.RPM.Value, KeyTPM: row.TPM.Value})
			p.Keys = append(p.Keys, row)
		}
	}
	d.render(w, r, http.StatusOK, "limits", d.page(r, s, "limits", "Limits", p))
}

// readUse fills in the row's current use of its rate limits, for the
// subject of either its key or its account. A limiter that cannot be
// read (Redis away) leaves the use unknown, and the page still renders.
func (d *Dashboard) readUse(r *http.Request, row *limitRow, sub limits.Subject) {
	if d.rates == nil || row.RPM.Value == 0 && row.TPM.Value == 0 {
		return
	}
	u, err := d.rates.Current(r.Context(), sub)
	if err != nil {
		d.log.Warn("read rate-limit use", "account", sub.AccountID, "key_id", sub.KeyID, "err", err)
		return
	}
	requests, tokens := u.AccountRequests, u.AccountTokens
	if sub.KeyID != "" {
		requests, tokens = u.KeyRequests, u.KeyTokens
	}
	row.RPM.Used, row.RPM.Known = requests, row.RPM.Value > 0
	row.TPM.Used, row.TPM.Known = tokens, row.TPM.Value > 0
}

// newLimitRow resolves stored limits as the gateway does: a rate limit of
// 0 takes the configured default (and a default of 0 is unlimited); a
// budget of 0 is none.
func newLimitRow(name string, k *store.Key, l store.Limits, spend usd.Amount, rpm, tpm int64) limitRow {
	resolve := func(own, def int64) rate {
		if own > 0 {
			return rate{Value: own}
		}
		return rate{Value: def, Default: true}
	}
	return limitRow{Name: name, Key: k, RPM: resolve(l.RPM, rpm), TPM: resolve(l.TPM, tpm),
		Budget: l.MonthlyBudget, Spend: spend, Percent: percent(spend, l.MonthlyBudget)}
}
