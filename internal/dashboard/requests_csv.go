package dashboard

import (
	"net/http"

	"github.com/switchyard-gw/switchyard/internal/store"
)

// requestsCSV exports every row the Requests page's filters select (not
// only one page) as CSV, streamed: a page of store.MaxRequestsLimit rows
// is read, written and flushed at a time, so that neither the server's
// memory nor a read transaction grows with the export.
func (d *Dashboard) requestsCSV(w http.ResponseWriter, r *http.Request, s *session) {
	f := readRequestsForm(r.URL.Query())
	q, problem := f.query(s)
	if problem != "" {
		d.renderError(w, r, http.StatusBadRequest, "Bad request", problem)
		return
	}
	q.Limit = store.MaxRequestsLimit
	// The first page is read before anything is sent, so that a
	// database that fails at once is a clean 500.
	first, err := d.store.Requests(r.Context(), q)
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", `attachment; filename="switchyard-requests-`+d.now().UTC().Format("20060102-150405")+`.csv"`)
	rc := http.NewResponseController(w)
	out, err := store.NewRequestCSV(w)
	write := func(rows []store.RequestRow) error {
		if err := out.Write(rows); err != nil {
			return err
		}
		return rc.Flush()
	}
	if err == nil {
		err = write(first.Rows)
	}
	if err == nil && !first.Next.IsZero() {
		q.After = first.Next
		err = d.store.EachRequestPage(r.Context(), q, write)
	}
	// Once writing starts the status is sent: a failure can only be
	// logged (the file ends short).
	if err != nil {
		d.log.Warn("export requests", "route", r.Pattern, "err", err)
	}
}
