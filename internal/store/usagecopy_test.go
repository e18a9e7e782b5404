package store_test

import (
	"cmp"
	"context"
	"crypto/rand"
	"database/sql"
	"fmt"
	"math"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/switchyard-gw/switchyard/internal/meter"
	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
)

// TestWriteUsageCopyPaths drives the PostgreSQL writer through both of
// its paths: a batch of new records is copied straight into the ledger;
// a batch holding stored IDs (here with other values than stored, as a
// changed record would have) takes the staging path, stores exactly the
// new ones and rolls up exactly those.
func TestWriteUsageCopyPaths(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t, storetest.PostgresURL(t))
	models, days := []string{"gpt-4o", "claude"}, []string{"1969-12-31", "2026-05-01", "2026-05-02"}
	all := make([]meter.Record, 900)
	for n := range all {
		all[n] = usageRecord(n, "acct_a", fmt.Sprintf("key_%d", n%3), models[n%2], days[n%3], []int{200, 429, 500, 499}[n%4])
	}
	changed := func(recs []meter.Record) []meter.Record {
		out := make([]meter.Record, len(recs))
		for i, r := range recs {
			r.PromptTokens, r.TotalTokens, r.Cost, r.Model = 1e6, 1e6, 1e9, "changed"
			out[i] = r
		}
		return out
	}
	tests := []struct {
		name   string
		batch  []meter.Record
		want   int
		staged int64 // batches that took the staging path so far
	}{
		{"new", all[:300], 300, 0},
		{"new again, after the first", all[300:600], 300, 0},
		{"stored ones changed, among new ones", slices.Concat(changed(all[250:350]), all[600:700]), 100, 1},
		{"new ones, then a stored one last", slices.Concat(all[700:800], changed(all[599:600])), 100, 2},
		{"only stored ones", changed(all[:800]), 0, 3},
		{"the rest", all[800:], 100, 3},
	}
	for _, tt := range tests {
		if n, err := s.WriteUsage(ctx, tt.batch); err != nil || n != tt.want {
			t.Errorf("%s: WriteUsage = %d, %v; want %d", tt.name, n, err, tt.want)
		}
		if got := store.UsageStagedForTest(s); got != tt.staged {
			t.Errorf("%s: %d batches staged so far, want %d", tt.name, got, tt.staged)
		}
	}
	if n, err := s.CountUsage(ctx, "acct_a"); err != nil || n != int64(len(all)) {
		t.Errorf("CountUsage = %d, %v; want %d", n, err, len(all))
	}
	got, err := s.ListUsage(ctx, "acct_a", len(all))
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Clone(all)
	slices.SortFunc(want, func(a, b meter.Record) int { // newest first, as ListUsage
		return cmp.Or(b.Time.Compare(a.Time), strings.Compare(b.ID, a.ID))
	})
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("stored records (-want +got):\n%s", diff)
	}
	for _, by := range []string{"day", "model", "key"} {
		want := expectedSummary(all, "acct_a", by)
		if diff := gocmp.Diff(want, summary(t, s, store.UsageQuery{AccountID: "acct_a", By: by})); diff != "" {
			t.Errorf("rollup by %s (-want +got):\n%s", by, diff)
		}
	}
}

// TestWriteUsageCopyRefused checks that a batch the database refuses for
// another reason than a stored ID (a NUL byte, which no PostgreSQL text
// holds) fails as a whole, stores nothing and is not retried through the
// staging path, which would only fail again.
func TestWriteUsageCopyRefused(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t, storetest.PostgresURL(t))
	batch := []meter.Record{
		usageRecord(1, "acct_a", "key_1", "gpt-4o", "2026-05-01", 200),
		usageRecord(2, "acct_a", "key_1", "gpt-4o\x00", "2026-05-01", 200),
	}
	if n, err := s.WriteUsage(ctx, batch); err == nil || n != 0 {
		t.Errorf("WriteUsage with a NUL byte = %d, %v; want an error", n, err)
	}
	if got := store.UsageStagedForTest(s); got != 0 {
		t.Errorf("%d batches staged, want 0", got)
	}
	if n, err := s.CountUsage(ctx, ""); err != nil || n != 0 {
		t.Errorf("CountUsage = %d, %v; want 0", n, err)
	}
	if rows := summary(t, s, store.UsageQuery{AccountID: "acct_a", By: "day"}); len(rows) != 0 {
		t.Errorf("rollup = %v, want none", rows)
	}
}

// TestWriteUsageCopyValues writes records with each integer at its
// column's limits, empty and multi-byte strings, a time before 1970 and
// every flag set, each in an account of its own (no rollup row adds two
// of them): the ledger gives back each record as written, which the
// binary COPY encoding must preserve field by field.
func TestWriteUsageCopyValues(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t, storetest.PostgresURL(t))
	base := usageRecord(1, "", "key_1", "gpt-4o", "2026-05-01", 200)
	edit := []func(r *meter.Record){
		func(r *meter.Record) {
			r.PromptTokens, r.CompletionTokens, r.TotalTokens, r.CachedTokens = math.MaxInt64, 0, math.MaxInt64, math.MaxInt64
			r.InputPrice, r.OutputPrice, r.CachedPrice, r.Cost = math.MaxInt64, math.MaxInt64, math.MaxInt64, math.MaxInt64
			r.Status, r.Attempts = math.MaxInt32, math.MaxInt32
			r.Latency, r.TTFT = time.Duration(math.MaxInt64/1000*1000), time.Duration(math.MaxInt64/1000*1000)
		},
		func(r *meter.Record) {
			r.PromptTokens, r.CompletionTokens, r.TotalTokens, r.CachedTokens = math.MinInt64, -1, math.MinInt64, -1
			r.InputPrice, r.OutputPrice, r.CachedPrice, r.Cost = math.MinInt64, -1, -1, math.MinInt64
			r.Status, r.Attempts = math.MinInt32, -1
			r.Latency, r.TTFT = -time.Microsecond, time.Duration(math.MinInt64/1000*1000)
			r.Time = time.UnixMilli(-86_400_000*365 - 1).UTC()
		},
		func(r *meter.Record) {
			r.RequestID, r.KeyID, r.Endpoint, r.Provider, r.UpstreamModel, r.PriceVersion = "", "", "", "", "", ""
			r.ErrorType, r.RequestedModel, r.Deployment = "", "", ""
			r.Estimated, r.Streamed, r.Cancelled = true, true, true
		},
		func(r *meter.Record) {
			r.Model, r.RequestedModel, r.ErrorType = "模型-ü-🙂", "a\tb\nc\\d", "€"
			r.RequestID = strings.Repeat("r", 70_000) // longer than one CopyData message
		},
	}
	var recs []meter.Record
	for i, f := range edit {
		r := base
		r.ID, r.AccountID = fmt.Sprintf("rec_edge_%d", i), fmt.Sprintf("acct_edge_%d", i)
		f(&r)
		recs = append(recs, r)
	}
	if n, err := s.WriteUsage(ctx, recs); err != nil || n != len(recs) {
		t.Fatalf("WriteUsage = %d, %v; want %d", n, err, len(recs))
	}
	for _, want := range recs {
		got, err := s.ListUsage(ctx, want.AccountID, 2)
		if err != nil || len(got) != 1 {
			t.Errorf("ListUsage(%s) = %d records, %v; want 1", want.AccountID, len(got), err)
			continue
		}
		if diff := gocmp.Diff(want, got[0]); diff != "" {
			t.Errorf("record %s as stored (-want +got):\n%s", want.ID, diff)
		}
	}
}

// TestWriteUsageCopyOutOfRange checks that a status or attempt count
// beyond PostgreSQL's INTEGER fails the batch, stores nothing of it, and
// is not stored truncated.
func TestWriteUsageCopyOutOfRange(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t, storetest.PostgresURL(t))
	for _, f := range []func(r *meter.Record){
		func(r *meter.Record) { r.Status = math.MaxInt32 + 1 },
		func(r *meter.Record) { r.Status = math.MinInt32 - 1 },
		func(r *meter.Record) { r.Attempts = 1 << 32 },
	} {
		bad := usageRecord(2, "acct_a", "key_1", "gpt-4o", "2026-05-01", 200)
		f(&bad)
		batch := []meter.Record{usageRecord(1, "acct_a", "key_1", "gpt-4o", "2026-05-01", 200), bad}
		if n, err := s.WriteUsage(ctx, batch); err == nil || n != 0 {
			t.Errorf("WriteUsage(status %d, attempts %d) = %d, %v; want an error", bad.Status, bad.Attempts, n, err)
		}
	}
	if n, err := s.CountUsage(ctx, ""); err != nil || n != 0 {
		t.Errorf("CountUsage = %d, %v; want 0", n, err)
	}
}

// TestWriteUsageCopyFailsWhole checks that a batch fails whole, storing
// nothing, when the server stores fewer rows than sent (here a trigger
// skips one: the rollup would count a record the ledger does not hold)
// or refuses the rollup after the rows were copied; once the trigger is
// gone the same batch is written, on the fast path.
func TestWriteUsageCopyFailsWhole(t *testing.T) {
	tests := []struct {
		name, table, fn, trigger string
	}{
		{"a row skipped", "usage_records",
			`CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS
				$$ BEGIN IF NEW.id = 'rec_000002' THEN RETURN NULL; END IF; RETURN NEW; END $$`,
			`CREATE TRIGGER refuse BEFORE INSERT ON usage_records FOR EACH ROW EXECUTE FUNCTION refuse()`},
		{"the rollup refused", "usage_daily",
			`CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$`,
			`CREATE TRIGGER refuse BEFORE INSERT ON usage_daily FOR EACH ROW EXECUTE FUNCTION refuse()`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			s := storetest.Open(t, storetest.PostgresURL(t))
			for _, q := range []string{tt.fn, tt.trigger} {
				if _, err := store.ExecForTest(ctx, s, q); err != nil {
					t.Fatal(err)
				}
			}
			batch := []meter.Record{
				usageRecord(1, "acct_a", "key_1", "gpt-4o", "2026-05-01", 200),
				usageRecord(2, "acct_a", "key_1", "gpt-4o", "2026-05-01", 200),
			}
			if n, err := s.WriteUsage(ctx, batch); err == nil {
				t.Errorf("WriteUsage = %d, nil; want an error", n)
			}
			if n, err := s.CountUsage(ctx, ""); err != nil || n != 0 {
				t.Errorf("CountUsage = %d, %v; want 0", n, err)
			}
			if rows := summary(t, s, store.UsageQuery{AccountID: "acct_a", By: "day"}); len(rows) != 0 {
				t.Errorf("rollup = %v, want none", rows)
			}
			if _, err := store.ExecForTest(ctx, s, `DROP TRIGGER refuse ON `+tt.table); err != nil {
				t.Fatal(err)
			}
			if n, err := s.WriteUsage(ctx, batch); err != nil || n != len(batch) {
				t.Errorf("WriteUsage without the trigger = %d, %v; want %d", n, err, len(batch))
			}
			if got := store.UsageStagedForTest(s); got != 0 {
				t.Errorf("%d batches staged, want 0", got)
			}
		})
	}
}

// TestWriteUsageDailyLockOrder writes the rollup through both
// PostgreSQL paths in a database whose default collation is not by bytes
// (ICU's en-US, where "acct_a" sorts before "acct_B"), and notes the
// order in which each path proposes usage_daily rows, the order in which
// it locks them: both must take them by bytes, as rollup sorts them, or
// two batches written at once could lock two rows in opposite orders and
// deadlock.
func TestWriteUsageDailyLockOrder(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t, localeDatabase(t, "en-US"))
	for _, q := range []string{
		`CREATE TABLE daily_order (n bigserial, account_id text, model text, key_id text)`,
		`CREATE FUNCTION note_daily() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
			INSERT INTO daily_order (account_id, model, key_id) VALUES (NEW.account_id, NEW.model, NEW.key_id);
			RETURN NEW; END $$`,
		`CREATE TRIGGER note_daily BEFORE INSERT ON usage_daily FOR EACH ROW EXECUTE FUNCTION note_daily()`,
	} {
		if _, err := store.ExecForTest(ctx, s, q); err != nil {
			t.Fatal(err)
		}
	}
	names := []string{"a", "B", "c", "_d", "É"} // by bytes: B, _d, a, c, É
	var recs []meter.Record
	for i, account := range names {
		for j, model := range names {
			recs = append(recs, usageRecord(len(recs), "acct_"+account, "key_"+names[(i+j)%len(names)],
				"m_"+model, "2026-05-01", 200))
		}
	}
	half := len(recs) / 2
	if _, err := s.WriteUsage(ctx, recs[:half]); err != nil { // the fast path
		t.Fatal(err)
	}
	if _, err := s.WriteUsage(ctx, recs[half-1:]); err != nil { // a stored ID: the staging path
		t.Fatal(err)
	}
	if got := store.UsageStagedForTest(s); got != 1 {
		t.Fatalf("%d batches staged, want 1", got)
	}
	type key struct{ account, model, key string }
	var got []key
	err := store.QueryForTest(ctx, s, func(row interface{ Scan(...any) error }) error {
		var k key
		err := row.Scan(&k.account, &k.model, &k.key)
		got = append(got, k)
		return err
	}, `SELECT account_id, model, key_id FROM daily_order ORDER BY n`)
	if err != nil {
		t.Fatal(err)
	}
	var want []key
	for _, batch := range [][]meter.Record{recs[:half], recs[half:]} {
		var keys []key
		for _, r := range batch {
			keys = append(keys, key{r.AccountID, r.Model, r.KeyID})
		}
		slices.SortFunc(keys, func(a, b key) int {
			return cmp.Or(strings.Compare(a.account, b.account), strings.Compare(a.model, b.model),
				strings.Compare(a.key, b.key))
		})
		want = append(want, keys...)
	}
	if diff := gocmp.Diff(want, got, gocmp.AllowUnexported(key{})); diff != "" {
		t.Errorf("usage_daily rows in the order proposed (-want +got):\n%s", diff)
	}
}

// localeDatabase creates a database whose default collation is ICU's
// locale, dropped when t ends, and returns its URL; it skips t when the
// server has no ICU.
func localeDatabase(t *testing.T, locale string) string {
	t.Helper()
	base := os.Getenv(storetest.PostgresEnv)
	if base == "" {
		t.Skipf("%s not set", storetest.PostgresEnv)
	}
	db, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	name := "sy_test_locale_" + strings.ToLower(rand.Text()[:12])
	ctx := context.Background()
	_, err = db.ExecContext(ctx, `CREATE DATABASE `+name+` TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE '`+locale+`' LOCALE 'C.UTF-8'`)
	if err != nil {
		db.Close()
		t.Skipf("create a database of ICU locale %s: %v", locale, err)
	}
	t.Cleanup(func() {
		if _, err := db.ExecContext(ctx, `DROP DATABASE `+name+` WITH (FORCE)`); err != nil {
			t.Logf("drop test database: %v", err)
		}
		db.Close()
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// TestCopyColumnTypes checks the types the COPY encoder gives the
// ledger's columns (which the server-less TestEncodeCopyRows checks the
// encoding of) against usage_records as migrated: every column, of the
// same type. A column whose type changes fails here before a COPY sends
// its values in the wrong format.
func TestCopyColumnTypes(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t, storetest.PostgresURL(t))
	got := map[string]uint32{}
	err := store.QueryForTest(ctx, s, func(row interface{ Scan(...any) error }) error {
		var name string
		var oid uint32
		err := row.Scan(&name, &oid)
		got[name] = oid
		return err
	}, `SELECT a.attname, a.atttypid FROM pg_attribute a
		WHERE a.attrelid = 'usage_records'::regclass AND a.attnum > 0 AND NOT a.attisdropped`)
	if err != nil {
		t.Fatal(err)
	}
	if diff := gocmp.Diff(store.CopyColumnTypesForTest(), got); diff != "" {
		t.Errorf("column type OIDs of usage_records (-encoder +schema):\n%s", diff)
	}
}
