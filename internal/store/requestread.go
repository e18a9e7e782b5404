package store

import (
	"cmp"
	"context"
	"database/sql"
	"slices"
	"strconv"
	"strings"

	"github.com/switchyard-gw/switchyard/internal/meter"
)

// Predicates of the partial indexes of migration 0009, which a query
// names word for word so that SQLite, which does not do algebra on
// predicates, recognizes that the index applies (PostgreSQL would prove
// them from the filter's own terms).
const (
	notOK    = "status / 100 <> 2"
	askedFor = "requested_model <> model"
)

// statement is one SQL statement and its arguments.
type statement struct {
	text string
	args []any
}

// read is one ordered read of a page: the rows of q that also meet the
// condition extra ("" for none).
type read struct {
	q     RequestQuery
	extra string
}

// reads returns the page's reads, whose rows are disjoint: one, or two
// for a filter on the model asked alone (asked and answered by it,
// through the account's model index; asked for it and answered by
// another, through the partial indexes on the model asked, which hold
// only such rows, as does a filter on both models when they differ).
func (q RequestQuery) reads() []read {
	switch {
	case q.RequestedModel == "":
		return []read{{q: q}}
	case q.Model == "":
		answered := q
		answered.Model = q.RequestedModel
		return []read{{q: answered}, {q: q, extra: askedFor}}
	case q.Model != q.RequestedModel:
		return []read{{q: q, extra: askedFor}}
	}
	return []read{{q: q}}
}

// perAccount reports whether r is read one account at a time: a model
// that answered, across accounts and keys, which only the index
// usage_records_account_model gives in order since migration 0010 (0011
// on PostgreSQL) dropped the one on the model alone. A key is read
// through its own index, and a model asked that another answered
// through its partial index, across accounts.
func (r read) perAccount() bool {
	return r.q.AccountID == "" && r.q.KeyID == "" && r.q.Model != "" && r.extra == ""
}

// part is one statement's worth of a page: a read, or one account's
// share of a read per account.
type part struct {
	read
	share  bool
	newest int64 // the newest time a share's rows can have, Unix milliseconds (newest.bound)
}

// parts returns the page's parts, whose rows are disjoint: one per read,
// or for a read per account (perAccount) one per account that may hold
// rows of it (accounts, one query run here), the account with the newest
// such row first. readRequests skips a part whose newest row is older
// than the limit rows it already has, and reads only rows newer than
// those from the others, so that a page reads about limit accounts at
// most, however many used the model, and few rows of each but the first.
func (s *Store) parts(ctx context.Context, q RequestQuery) ([]part, error) {
	var out []part
	for _, r := range q.reads() {
		if !r.perAccount() {
			out = append(out, part{read: r})
			continue
		}
		st := r.accounts()
		accounts, err := queryRows(ctx, s.db, scanNewest, st.text, st.args...)
		if err != nil {
			return nil, err
		}
		classed := r.errorClass() != 0
		var shares []part
		for _, a := range accounts {
			t, ok := a.bound(classed)
			if !ok {
				continue
			}
			share := r
			share.q.AccountID = a.account
			if a.account == "" {
				// The ledger takes records of any account, even "",
				// which as AccountID would mean every account.
				share.extra = "account_id = ''"
			}
			shares = append(shares, part{read: share, share: true, newest: t})
		}
		slices.SortFunc(shares, func(a, b part) int { return cmp.Compare(b.newest, a.newest) })
		out = append(out, shares...)
	}
	return out, nil
}

// newest is an account and the times of its newest row of a read's
// model and, when the read's status class is looked up too (accounts),
// of that class; NULL when it has none.
type newest struct {
	account      string
	model, class sql.NullInt64
}

func scanNewest(row interface{ Scan(...any) error }) (newest, error) {
	var n newest
	err := row.Scan(&n.account, &n.model, &n.class)
	return n, err
}

// bound returns the time of the newest row the read can give in n's
// account: its newest of the model or, when classed (the class was
// looked up), the older of that and its newest of the class; false
// when it has none of either.
func (n newest) bound(classed bool) (int64, bool) {
	if !classed {
		return n.model.Int64, n.model.Valid
	}
	return min(n.model.Int64, n.class.Int64), n.model.Valid && n.class.Valid
}

// accountsSeen begins a statement that reads the ledger's accounts from
// accounts_seen (rows where id IS NOT NULL), skipping through an index
// that leads with account_id from one account to the next: a recursive
// query, one seek per account, where SELECT DISTINCT would read every
// entry.
const accountsSeen = `WITH RECURSIVE accounts_seen (id) AS (
			SELECT MIN(account_id) FROM usage_records
			UNION ALL
			SELECT (SELECT MIN(account_id) FROM usage_records WHERE account_id > a.id)
			FROM accounts_seen a WHERE a.id IS NOT NULL)`

// accounts returns the statement that lists the ledger's accounts
// (accountsSeen, a seek each) with the time of each one's newest record
// of r's model in r's time range and before its cursor, read first in
// usage_records_account_model (a seek each), and, when r selects a
// status class other than 2xx, of that class likewise, in the partial
// index usage_records_account_status (NULL for none, or when r's class
// is not looked up). Found in the ledger itself, the accounts include
// any since deleted, or never in accounts, whose records the ledger
// keeps all the same. r's other filters are left to each account's
// read, which checks them on the rows it reads anyway: here they could
// scan an account's rows. Without the class, a rare error class would
// have every account that used the model read (2xx, most rows, has no
// index to look it up in).
func (r read) accounts() statement {
	var c conds
	bounds := RequestQuery{Since: r.q.Since, Until: r.q.Until, After: r.q.After}
	byModel, byClass := bounds, bounds
	byModel.Model = r.q.Model
	byModel.where(&c, "", Cursor{})
	columns := newestRow(c.and()) + `, NULL`
	if class := r.errorClass(); class != 0 {
		model := c.and()
		c.list = nil
		byClass.StatusClass = class
		byClass.where(&c, "", Cursor{})
		columns = newestRow(model) + `, ` + newestRow(c.and())
	}
	return statement{text: accountsSeen + `
		SELECT id, ` + columns + `
		FROM accounts_seen a WHERE id IS NOT NULL`, args: c.args}
}

// newestRow returns a subquery of the time of the newest row of account
// a.id that meets where.
func newestRow(where string) string {
	return `(SELECT created_at FROM usage_records WHERE account_id = a.id AND ` + where + `
			ORDER BY created_at DESC, id DESC LIMIT 1)`
}

// errorClass returns r's status class when it is not 2xx, the classes
// that the partial index usage_records_account_status holds; 0 when
// there is none such.
func (r read) errorClass() int {
	if class := r.q.class(); class != 2 {
		return class
	}
	return 0
}

// sql returns r's statement, reading at most limit rows, and when floor
// is not zero only rows newer than it (which come before it in the
// list).
func (r read) sql(limit int, floor Cursor) statement {
	var c conds
	r.q.where(&c, r.extra, floor)
	text := `SELECT ` + usageColumns + ` FROM usage_records`
	if len(c.list) > 0 {
		text += ` WHERE ` + c.and()
	}
	c.args = append(c.args, limit)
	return statement{text + ` ORDER BY created_at DESC, id DESC LIMIT $` + strconv.Itoa(len(c.args)), c.args}
}

// conds is the conditions of a statement's WHERE and the arguments of
// their parameters, numbered in order from $1 across the statement.
type conds struct {
	list []string
	args []any
}

// add adds cond, whose "?" are the parameters of vals, in order.
func (c *conds) add(cond string, vals ...any) {
	for i := range vals {
		cond = strings.Replace(cond, "?", "$"+strconv.Itoa(len(c.args)+i+1), 1)
	}
	c.list = append(c.list, cond)
	c.args = append(c.args, vals...)
}

// and returns the conditions joined by AND.
func (c *conds) and() string { return strings.Join(c.list, ` AND `) }

// where adds to c the conditions of q's filters, the condition extra
// ("" for none) and, when floor is not zero, rows newer than floor.
func (q RequestQuery) where(c *conds, extra string, floor Cursor) {
	if q.AccountID != "" {
		c.add("account_id = ?", q.AccountID)
	}
	if q.KeyID != "" {
		c.add("key_id = ?", q.KeyID)
	}
	if q.Model != "" {
		c.add("model = ?", q.Model)
	}
	if q.RequestedModel != "" {
		c.add("requested_model = ?", q.RequestedModel)
	}
	if extra != "" {
		c.add(extra)
	}
	q.statusWhere(c)
	if !q.Since.IsZero() && floor.IsZero() {
		c.add("created_at >= ?", millis(q.Since))
	}
	// A cursor within the range is the tighter upper bound: with both,
	// a planner may seek to Until and filter its way down to the cursor.
	// A floor (a row of the range) is the tighter lower bound, likewise.
	if !q.Until.IsZero() && (q.After.IsZero() || q.After.Time >= millis(q.Until)) {
		c.add("created_at < ?", millis(q.Until))
	}
	if !q.After.IsZero() {
		c.add("(created_at, id) < (?, ?)", q.After.Time, q.After.ID)
	}
	if !floor.IsZero() {
		c.add("(created_at, id) > (?, ?)", floor.Time, floor.ID)
	}
}

// statusWhere adds to c the conditions of q's status filters. The class
// is compared as status / 100, the expression of the index
// usage_records_account_status; an exact status brings its class, so
// that it uses that index too, and a class other than 2xx the predicate
// of that partial index.
func (q RequestQuery) statusWhere(c *conds) {
	if q.Status != 0 {
		if q.StatusClass != 0 && q.StatusClass != q.Status/100 {
			c.add("1 = 0")
		}
		c.add("status = ?", q.Status)
	}
	if class := q.class(); class != 0 {
		c.add("status / 100 = ?", class)
		if class != 2 {
			c.add(notOK)
		}
	}
}

// class returns the status class q selects: its exact status's, or its
// StatusClass; 0 for any.
func (q RequestQuery) class() int {
	if q.Status != 0 {
		return q.Status / 100
	}
	return q.StatusClass
}

// readRequests reads the page's parts and returns at most limit
// records, newest first: the parts' rows are disjoint and each read in
// that order, so they are merged. Once limit records are merged, the
// oldest of them is a floor for the accounts' shares of a read per
// account: one whose rows are all older is skipped, and the others read
// only rows newer than it, a range of their model index. (Other reads
// take no floor: a planner that estimates a range narrow may read it
// through another index and sort it.) It also returns how many reads it
// ran, the statements after the lookup of accounts, which tests check.
func (s *Store) readRequests(ctx context.Context, q RequestQuery, limit int) ([]meter.Record, int, error) {
	parts, err := s.parts(ctx, q)
	if err != nil {
		return nil, 0, err
	}
	m := merger{limit: limit}
	reads := 0
	for _, p := range parts {
		var floor Cursor
		if len(m.out) == limit && p.share {
			floor = Cursor{Time: millis(m.out[limit-1].Time), ID: m.out[limit-1].ID}
			if floor.Time > p.newest {
				continue
			}
		}
		st := p.sql(limit, floor)
		recs, err := queryRows(ctx, s.db, scanUsage, st.text, st.args...)
		if err != nil {
			return nil, 0, err
		}
		reads++
		m.add(recs)
	}
	return m.out, reads, nil
}

// merger merges reads, each newest first (by time, then ID), into out,
// the newest limit records of them all. It merges into two buffers that
// swap roles, out and the next, each grown to at most limit records,
// so that a page's reads, one per account of a read per account (a CSV
// export's page: a thousand rows and one), allocate the buffers a few
// times, not once each.
type merger struct {
	limit      int
	out, spare []meter.Record
}

// add merges recs into m.out.
func (m *merger) add(recs []meter.Record) {
	if len(recs) == 0 {
		return
	}
	a, b := m.out, recs
	next := m.spare[:0]
	if n := min(m.limit, len(a)+len(b)); cap(next) < n {
		next = make([]meter.Record, 0, min(m.limit, max(n, 2*cap(next))))
	}
	for len(next) < m.limit && (len(a) > 0 || len(b) > 0) {
		if len(b) == 0 || len(a) > 0 && newer(&a[0], &b[0]) {
			next, a = append(next, a[0]), a[1:]
		} else {
			next, b = append(next, b[0]), b[1:]
		}
	}
	m.out, m.spare = next, m.out
}

// newer reports whether a comes before b in the request log.
func newer(a, b *meter.Record) bool {
	ta, tb := millis(a.Time), millis(b.Time)
	return ta > tb || ta == tb && a.ID > b.ID
}
