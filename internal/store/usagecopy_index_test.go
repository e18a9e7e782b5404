package store_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/meter"
	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
)

// TestLedgerIndexesCheap checks the indexes of usage_records on
// PostgreSQL against what makes an insert into them cheap (migration
// 0010), including any index added later: every text column they hold
// compares by bytes (an index in the database's locale compares through
// strcoll), and no index but the primary key deduplicates (each ends in
// id, so it never finds two equal entries, only scans full pages).
func TestLedgerIndexesCheap(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t, storetest.PostgresURL(t))
	var bad []string
	scan := func(row interface{ Scan(...any) error }) error {
		var what string
		err := row.Scan(&what)
		bad = append(bad, what)
		return err
	}
	err := store.QueryForTest(ctx, s, scan, `SELECT i.relname || '.' || a.attname || ' COLLATE ' || c.collname
		FROM pg_index x
		JOIN pg_class i ON i.oid = x.indexrelid
		JOIN pg_attribute a ON a.attrelid = x.indexrelid
		JOIN pg_collation c ON c.oid = x.indcollation[a.attnum - 1]
		WHERE x.indrelid = 'usage_records'::regclass AND c.collname <> 'C'`)
	if err != nil {
		t.Fatal(err)
	}
	err = store.QueryForTest(ctx, s, scan, `SELECT i.relname || ' deduplicates'
		FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
		WHERE x.indrelid = 'usage_records'::regclass AND NOT x.indisunique
			AND NOT 'deduplicate_items=off' = ANY(coalesce(i.reloptions, '{}'))`)
	if err != nil {
		t.Fatal(err)
	}
	if len(bad) > 0 {
		t.Errorf("usage_records' indexes: %s", strings.Join(bad, ", "))
	}
}

// TestRequestsByteOrder pages through records of one instant whose IDs
// differ where a locale could order them otherwise than bytes do (case,
// punctuation, digits, non-ASCII): on each backend, the request log
// lists them newest first by ID in byte order, the order the model
// asked's two reads are merged in (newer), and its cursors visit each
// exactly once.
func TestRequestsByteOrder(t *testing.T) {
	ids := []string{"usg_B", "usg_a", "usg_A", "usg__", "usg_-", "usg_0", "usg_a0", "usg_a_", "usg_é", "usg_z", "usg_Z", "usg_~"}
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		s := storetest.Open(t, b.URL)
		recs := make([]meter.Record, len(ids))
		for i, id := range ids {
			recs[i] = usageRecord(i, "acct_a", "key_a", "model-a", "2026-05-01", 200)
			recs[i].ID, recs[i].Time = id, time.UnixMilli(1777593600000)
		}
		if _, err := s.WriteUsage(ctx, recs); err != nil {
			t.Fatal(err)
		}
		var got []string
		q := store.RequestQuery{AccountID: "acct_a", Limit: 5}
		err := s.EachRequestPage(ctx, q, func(rows []store.RequestRow) error {
			for _, r := range rows {
				got = append(got, r.ID)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"usg_é", "usg_~", "usg_z", "usg_a_", "usg_a0", "usg_a", "usg__", "usg_Z", "usg_B", "usg_A", "usg_0", "usg_-"}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("request log order:\n got %q\nwant %q", got, want)
		}
	})
}
