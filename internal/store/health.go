package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"
)

// HealthQuery selects the usage records of an account, or of every
// account, in a window of time, for the dashboard's health charts.
type HealthQuery struct {
	AccountID string // "" for every account
	// Since and Until bound the window: Since included, Until not.
	Since, Until time.Time
}

// where returns the query's condition on usage_records and its
// arguments, numbered from $1. Both forms are ranges of the index on
// (account_id, created_at). For every account, the accounts are found
// by skipping through that index (accountsSeen, requestread.go), so that the database
// then seeks each account's stretch of the window rather than reading
// the whole ledger.
func (q HealthQuery) where(postgres bool) (string, []any) {
	since, until := millis(q.Since), millis(q.Until)
	if q.AccountID != "" {
		return `account_id = $1 AND created_at >= $2 AND created_at < $3`, []any{q.AccountID, since, until}
	}
	accounts := accountsSeen + `
		SELECT id FROM accounts_seen WHERE id IS NOT NULL`
	in := `account_id IN (` + accounts + `)`
	if postgres {
		// As an array the accounts are one value, which PostgreSQL seeks
		// in the index; as a subquery it would hash them and scan the
		// whole table in parallel, several times slower.
		in = `account_id = ANY(ARRAY(` + accounts + `))`
	}
	return in + ` AND created_at >= $1 AND created_at < $2`, []any{since, until}
}

// HourRow is the requests of one hour.
type HourRow struct {
	Hour     time.Time // its start, UTC
	Requests int64
	Errors   int64 // answered with a status of 400 or more
}

// RequestsPerHour returns the requests and errors of each UTC hour of
// the window that has any, oldest first.
func (s *Store) RequestsPerHour(ctx context.Context, q HealthQuery) ([]HourRow, error) {
	cond, args := q.where(s.postgres)
	out, err := queryRows(ctx, s.db, func(row interface{ Scan(...any) error }) (HourRow, error) {
		var r HourRow
		var hour int64
		err := row.Scan(&hour, &r.Requests, &r.Errors)
		r.Hour = time.UnixMilli(hour * time.Hour.Milliseconds()).UTC()
		return r, err
	}, perHourSQL(cond), args...)
	if err != nil {
		return nil, fmt.Errorf("requests per hour: %w", err)
	}
	return out, nil
}

// LatencyRow is the latency of the answered requests (status below 400)
// of one model or deployment. The percentiles are rounded down to two
// significant digits (1,234 ms is 1,200 ms; under 100 µs they are exact):
// they come from a histogram with a bucket per two leading digits, at
// most 10% wide.
type LatencyRow struct {
	Name     string // the model or deployment; "" for records without one
	Requests int64
	P50, P95 time.Duration
}

// latencyGroups are the columns LatencyPercentiles groups by.
var latencyGroups = map[string]string{"model": "model", "deployment": "deployment"}

// LatencyPercentiles returns the median and 95th percentile of latency
// per model or deployment (by), the most requested first (ties by name).
// The database sums a histogram of the window's records (bucketed by
// the digits of latency_us, which both engines can do without math
// functions), so that the rows read here are bounded by the buckets
// (at most 90 a decade per group), never by the records.
func (s *Store) LatencyPercentiles(ctx context.Context, q HealthQuery, by string) ([]LatencyRow, error) {
	col, ok := latencyGroups[by]
	if !ok {
		return nil, fmt.Errorf("latency percentiles: unknown grouping %q (want model or deployment)", by)
	}
	cond, args := q.where(s.postgres)
	buckets, err := queryRows(ctx, s.db, scanLatencyBucket, latencySQL(col, cond), args...)
	if err != nil {
		return nil, fmt.Errorf("latency percentiles: %w", err)
	}
	return percentiles(buckets), nil
}

// perHourSQL counts requests and errors per hour (of Unix time, so of
// UTC) of the records that match cond.
func perHourSQL(cond string) string {
	return `SELECT created_at / 3600000, COUNT(*), CAST(SUM(CASE WHEN status >= 400 THEN 1 ELSE 0 END) AS BIGINT)
		FROM usage_records WHERE ` + cond + ` GROUP BY 1 ORDER BY 1`
}

// latencySQL sums the histogram of latency per col: a bucket per count
// of digits and first two digits.
func latencySQL(col, cond string) string {
	return `SELECT ` + col + `, LENGTH(CAST(latency_us AS TEXT)), SUBSTR(CAST(latency_us AS TEXT), 1, 2), COUNT(*)
		FROM usage_records WHERE ` + cond + ` AND status < 400 AND latency_us >= 0
		GROUP BY 1, 2, 3`
}

// latencyBucket is the count of a group's latencies from Low up to the
// next bucket's.
type latencyBucket struct {
	name  string
	low   int64 // µs
	count int64
}

// scanLatencyBucket reads a bucket: the latency's digits and their
// first two, so "1234" is the bucket of 1200 to 1299 µs.
func scanLatencyBucket(row interface{ Scan(...any) error }) (latencyBucket, error) {
	var b latencyBucket
	var digits int
	var lead string
	if err := row.Scan(&b.name, &digits, &lead, &b.count); err != nil {
		return b, err
	}
	v, err := strconv.ParseInt(lead, 10, 64)
	if err != nil || digits < len(lead) || digits > 19 {
		return b, fmt.Errorf("latency bucket %q of %d digits: not a latency", lead, digits)
	}
	b.low = v
	for range digits - len(lead) {
		b.low *= 10
	}
	return b, nil
}

// percentiles turns buckets into a row per group, with the nearest-rank
// percentiles: the low end of the bucket that holds the rank.
func percentiles(buckets []latencyBucket) []LatencyRow {
	slices.SortFunc(buckets, func(a, b latencyBucket) int {
		return cmp.Or(cmp.Compare(a.name, b.name), cmp.Compare(a.low, b.low))
	})
	var out []LatencyRow
	for group := range chunkBy(buckets, func(b latencyBucket) string { return b.name }) {
		r := LatencyRow{Name: group[0].name}
		for _, b := range group {
			r.Requests += b.count
		}
		r.P50 = rank(group, (r.Requests*50+99)/100)
		r.P95 = rank(group, (r.Requests*95+99)/100)
		out = append(out, r)
	}
	slices.SortStableFunc(out, func(a, b LatencyRow) int { return cmp.Compare(b.Requests, a.Requests) })
	return out
}

// rank returns the low end of the bucket that holds the n-th smallest
// latency (from 1) of buckets, sorted.
func rank(buckets []latencyBucket, n int64) time.Duration {
	var seen int64
	for _, b := range buckets {
		seen += b.count
		if seen >= n {
			return time.Duration(b.low) * time.Microsecond
		}
	}
	return time.Duration(buckets[len(buckets)-1].low) * time.Microsecond
}

// chunkBy yields the runs of s with the same key.
func chunkBy[T any](s []T, key func(T) string) func(func([]T) bool) {
	return func(yield func([]T) bool) {
		for i := 0; i < len(s); {
			j := i + 1
			for j < len(s) && key(s[j]) == key(s[i]) {
				j++
			}
			if !yield(s[i:j]) {
				return
			}
			i = j
		}
	}
}
