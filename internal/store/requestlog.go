package store

import (
	"context"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/switchyard-gw/switchyard/internal/meter"
)

// Request log page sizes: DefaultRequestsLimit rows a page unless asked,
// at most MaxRequestsLimit.
const (
	DefaultRequestsLimit = 50
	MaxRequestsLimit     = 1000
)

// ErrBadCursor reports a cursor that ParseCursor cannot read.
var ErrBadCursor = errors.New("not a request log cursor")

// RequestQuery selects usage records for the request log, newest first
// (by time, then record ID). Every filter set must hold; the zero value
// lists every record of every account. Each combination of filters is
// read in order from indexes of migrations 0008 and 0009, never sorted:
// one index, or two merged for the model asked, or, for a model across
// accounts (operators, since migration 0010, 0011 on PostgreSQL), the
// model index of each account with rows of it, merged (requestread.go).
type RequestQuery struct {
	// AccountID limits the list to one account; "" lists every account
	// (operators only: the dashboard sets an owner's from the session).
	AccountID string
	// KeyID limits it to one API key.
	KeyID string
	// Model limits it to requests answered by this model (a fallback's
	// when one answered); RequestedModel to those that asked for this one.
	Model, RequestedModel string
	// StatusClass limits it to one class of statuses: 2 for 2xx, 4 for
	// 4xx, 5 for 5xx; 0 for any.
	StatusClass int
	// Status limits it to one exact HTTP status; 0 for any.
	Status int
	// Since (included) and Until (excluded) bound the request times; zero
	// leaves that end open.
	Since, Until time.Time
	// After continues the list after this row (a page's Next); zero
	// starts at the newest.
	After Cursor
	// Limit is the most rows of a page: 0 means DefaultRequestsLimit,
	// more than MaxRequestsLimit means MaxRequestsLimit.
	Limit int
}

// Cursor is a position in the request log: the time and ID of the last
// row of a page. Its String form is opaque, for URLs.
type Cursor struct {
	Time int64 // Unix milliseconds
	ID   string
}

// IsZero reports whether c is the start of the list.
func (c Cursor) IsZero() bool { return c.ID == "" }

// String encodes c for a URL; "" for the zero cursor.
func (c Cursor) String() string {
	if c.IsZero() {
		return ""
	}
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(c.Time, 10) + "." + c.ID))
}

// ParseCursor reads what Cursor.String wrote; "" is the zero cursor.
// Anything else that it did not write is ErrBadCursor.
func ParseCursor(s string) (Cursor, error) {
	if s == "" {
		return Cursor{}, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return Cursor{}, ErrBadCursor
	}
	ms, id, ok := strings.Cut(string(b), ".")
	t, err := strconv.ParseInt(ms, 10, 64)
	if !ok || err != nil || id == "" || !Storable(id) {
		return Cursor{}, ErrBadCursor
	}
	return Cursor{Time: t, ID: id}, nil
}

// RequestRow is one request of the log: its usage record and the name
// of its key ("" when the key is gone).
type RequestRow struct {
	meter.Record
	KeyName string
}

// RequestPage is one page of the request log.
type RequestPage struct {
	Rows []RequestRow
	// Next continues the list after Rows; zero when there is no more.
	Next Cursor
}

// Requests returns one page of the request log. The page holds no
// prompt or completion: the ledger has none.
func (s *Store) Requests(ctx context.Context, q RequestQuery) (RequestPage, error) {
	if q.KeyID != "" && q.AccountID == "" {
		// The key's account narrows an operator's query to the indexes
		// that lead with the account, and changes no result: a key
		// belongs to one account for good.
		var err error
		if q.AccountID, err = s.keyAccount(ctx, q.KeyID); err != nil {
			return RequestPage{}, fmt.Errorf("list requests: %w", err)
		}
	}
	limit := q.limit()
	recs, _, err := s.readRequests(ctx, q, limit+1)
	if err != nil {
		return RequestPage{}, fmt.Errorf("list requests: %w", err)
	}
	var p RequestPage
	if len(recs) > limit {
		recs = recs[:limit]
		last := recs[limit-1]
		p.Next = Cursor{Time: millis(last.Time), ID: last.ID}
	}
	names, err := s.keyNames(ctx, recs)
	if err != nil {
		return RequestPage{}, fmt.Errorf("list requests: %w", err)
	}
	p.Rows = make([]RequestRow, len(recs))
	for i, r := range recs {
		p.Rows[i] = RequestRow{Record: r, KeyName: names[r.KeyID]}
	}
	return p, nil
}

// EachRequestPage calls fn with every page of the request log that q
// selects from q.After on, until the last page or an error (fn's is
// returned as is). Each page is its own short query, so that a long
// export never holds a read transaction open on the ledger.
func (s *Store) EachRequestPage(ctx context.Context, q RequestQuery, fn func([]RequestRow) error) error {
	for {
		p, err := s.Requests(ctx, q)
		if err != nil {
			return err
		}
		if len(p.Rows) > 0 {
			if err := fn(p.Rows); err != nil {
				return err
			}
		}
		if p.Next.IsZero() {
			return nil
		}
		q.After = p.Next
	}
}

func (q RequestQuery) limit() int {
	switch {
	case q.Limit <= 0:
		return DefaultRequestsLimit
	case q.Limit > MaxRequestsLimit:
		return MaxRequestsLimit
	}
	return q.Limit
}

// keyAccount returns the account of key id; "" for a key that is not
// (or no longer) in api_keys.
func (s *Store) keyAccount(ctx context.Context, id string) (string, error) {
	if unstorable(id) {
		return "", nil
	}
	var account string
	err := s.db.QueryRowContext(ctx, `SELECT account_id FROM api_keys WHERE id = $1`, id).Scan(&account)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return account, err
}

// keyNames returns the names of the keys of recs by ID, in one query.
func (s *Store) keyNames(ctx context.Context, recs []meter.Record) (map[string]string, error) {
	names := map[string]string{}
	var args []any
	var marks []string
	for _, r := range recs {
		if _, ok := names[r.KeyID]; ok {
			continue
		}
		names[r.KeyID] = ""
		args = append(args, r.KeyID)
		marks = append(marks, "$"+strconv.Itoa(len(args)))
	}
	if len(args) == 0 {
		return names, nil
	}
	type pair struct{ id, name string }
	rows, err := queryRows(ctx, s.db, func(row interface{ Scan(...any) error }) (pair, error) {
		var p pair
		err := row.Scan(&p.id, &p.name)
		return p, err
	}, `SELECT id, name FROM api_keys WHERE id IN (`+strings.Join(marks, ", ")+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("key names: %w", err)
	}
	for _, p := range rows {
		names[p.id] = p.name
	}
	return names, nil
}
