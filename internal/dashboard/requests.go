package dashboard

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/switchyard-gw/switchyard/internal/store"
)

// requestsForm is the Requests page's filters as typed: the query
// string's since, until, key, model, asked, status and (operators only)
// account, and the page's cursor.
type requestsForm struct {
	Since, Until, Key, Model, Asked, Status, Account, Cursor string
}

// requestsFilters are the query parameters of requestsForm, in its order.
var requestsFilters = []string{"since", "until", "key", "model", "asked", "status", "account", "cursor"}

// maxFilterLen bounds a filter's text: no ID or model name is longer.
const maxFilterLen = 200

// readRequestsForm reads the form from the query string.
func readRequestsForm(v url.Values) requestsForm {
	get := func(k string) string { return strings.TrimSpace(v.Get(k)) }
	return requestsForm{Since: get("since"), Until: get("until"), Key: get("key"), Model: get("model"),
		Asked: get("asked"), Status: get("status"), Account: get("account"), Cursor: v.Get("cursor")}
}

// values returns the form's filters as a query string, with the cursor
// given (none when "").
func (f requestsForm) values(cursor string) url.Values {
	v := url.Values{}
	for i, s := range []string{f.Since, f.Until, f.Key, f.Model, f.Asked, f.Status, f.Account, cursor} {
		if s != "" {
			v.Set(requestsFilters[i], s)
		}
	}
	return v
}

// query turns the form into a store query for the session's account or,
// for an operator, the account the form names (every account when it
// names none). An owner's account always comes from the session, never
// from the form. A form it cannot read comes with a problem to show,
// naming the field.
func (f requestsForm) query(s *session) (store.RequestQuery, string) {
	q := store.RequestQuery{AccountID: s.AccountID, KeyID: f.Key, Model: f.Model, RequestedModel: f.Asked}
	if s.Account.IsAdmin {
		q.AccountID = f.Account
	}
	for i, v := range []string{f.Since, f.Until, f.Key, f.Model, f.Asked, f.Status, f.Account} {
		if !store.Storable(v) || len(v) > maxFilterLen {
			return q, fmt.Sprintf("The filter “%s” is not text of at most %d characters.", requestsFilters[i], maxFilterLen)
		}
	}
	var problem string
	if q.Since, problem = readFilterTime("since", f.Since, false); problem != "" {
		return q, problem
	}
	if q.Until, problem = readFilterTime("until", f.Until, true); problem != "" {
		return q, problem
	}
	if !q.Since.IsZero() && !q.Until.IsZero() && !q.Since.Before(q.Until) {
		return q, "The filter “since” must come before “until”."
	}
	if q.StatusClass, q.Status, problem = readStatus(f.Status); problem != "" {
		return q, problem
	}
	var err error
	if q.After, err = store.ParseCursor(f.Cursor); err != nil {
		return q, "The page link is damaged (its “cursor” is not one this page made). Start again from the first page."
	}
	return q, ""
}

// readFilterTime reads a time filter in UTC: a day (2026-11-22) or a
// minute (2026-11-22T15:04, a datetime-local field's value). An end
// (until) includes its whole day or minute.
func readFilterTime(name, v string, end bool) (time.Time, string) {
	if v == "" {
		return time.Time{}, ""
	}
	for _, layout := range []struct {
		format string
		span   time.Duration
	}{{time.DateOnly, 24 * time.Hour}, {"2006-01-02T15:04", time.Minute}} {
		if t, err := time.Parse(layout.format, v); err == nil {
			if end {
				t = t.Add(layout.span)
			}
			return t, ""
		}
	}
	return time.Time{}, fmt.Sprintf("The filter “%s” is not a day such as 2026-11-22 or a time such as 2026-11-22T15:04 (UTC).", name)
}

// readStatus reads the status filter: a class such as "5xx", or a
// status such as "429".
func readStatus(v string) (class, status int, problem string) {
	if v == "" {
		return 0, 0, ""
	}
	if c, ok := strings.CutSuffix(strings.ToLower(v), "xx"); ok && len(c) == 1 && c[0] >= '1' && c[0] <= '5' {
		return int(c[0] - '0'), 0, ""
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 100 && n <= 599 {
		return 0, n, ""
	}
	return 0, 0, "The filter “status” is not a class such as 5xx or a status such as 429."
}

// requestsPage is the data of the Requests page.
type requestsPage struct {
	Form     requestsForm
	Error    string
	Operator bool
	Accounts []store.Account // an operator's choice of account
	Keys     []store.Key     // the keys of the account shown, if one
	Rows     []requestRow
	Emails   map[string]string // account emails by ID, for operators
	Later    bool              // whether this is not the first page
	First    string            // the first page's URL
	Next     string            // the next page's URL; "" on the last
	CSV      string            // the export's URL for these filters
}

// requestRow is one row of the page, formatted.
type requestRow struct {
	store.RequestRow
	When, Latency, TTFB string
}

func (d *Dashboard) requests(w http.ResponseWriter, r *http.Request, s *session) {
	f := readRequestsForm(r.URL.Query())
	p := requestsPage{Form: f, Operator: s.Account.IsAdmin}
	q, problem := f.query(s)
	if err := d.requestChoices(r, s, q.AccountID, &p); err != nil {
		d.serverError(w, r, err)
		return
	}
	if problem != "" {
		p.Error = problem
		d.render(w, r, http.StatusBadRequest, "requests", d.page(r, s, "requests", "Requests", p))
		return
	}
	page, err := d.store.Requests(r.Context(), q)
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	for _, row := range page.Rows {
		p.Rows = append(p.Rows, requestRow{RequestRow: row, When: row.Time.UTC().Format(time.DateTime),
			Latency: millis(row.Latency), TTFB: millis(row.TTFT)})
	}
	p.Later = !q.After.IsZero()
	p.First = Prefix + "/requests?" + f.values("").Encode()
	if !page.Next.IsZero() {
		p.Next = Prefix + "/requests?" + f.values(page.Next.String()).Encode()
	}
	p.CSV = Prefix + "/requests.csv?" + f.values("").Encode()
	d.render(w, r, http.StatusOK, "requests", d.page(r, s, "requests", "Requests", p))
}

// requestChoices fills the page's choices: for an operator the accounts
// (and their emails for the rows), and the keys of the account shown.
func (d *Dashboard) requestChoices(r *http.Request, s *session, accountID string, p *requestsPage) error {
	if s.Account.IsAdmin {
		accts, err := d.store.ListAccounts(r.Context())
		if err != nil {
			return err
		}
		p.Accounts, p.Emails = accts, make(map[string]string, len(accts))
		for _, a := range accts {
			p.Emails[a.ID] = a.Email
		}
	}
	if accountID == "" || !store.Storable(accountID) {
		return nil
	}
	keys, err := d.store.ListKeys(r.Context(), accountID)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	p.Keys = keys
	return nil
}

// millis formats a duration in milliseconds, to the tenth below 10 ms;
// "–" for none (a request that streamed nothing has no first byte).
func millis(d time.Duration) string {
	if d <= 0 {
		return "–"
	}
	ms := float64(d) / float64(time.Millisecond)
	if ms < 10 {
		return strconv.FormatFloat(ms, 'f', 1, 64) + " ms"
	}
	return groupDigits(int64(ms+0.5)) + " ms"
}
