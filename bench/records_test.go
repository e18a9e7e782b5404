package main

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckRecords: a run passes when the database holds exactly one new
// record of its kind a request answered, and fails loudly when it holds
// more (a lost record fails the same way, after the 30s wait).
func TestCheckRecords(t *testing.T) {
	db := filepath.Join(t.TempDir(), "gw.db")
	d, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, err := d.Exec(`CREATE TABLE usage_records (streamed BOOLEAN, status INTEGER, completion_tokens INTEGER)`); err != nil {
		t.Fatal(err)
	}
	// Three plain answers, one stream, one failed plain request.
	if _, err := d.Exec(`INSERT INTO usage_records VALUES (false, 200, 5), (false, 200, 5), (false, 200, 5), (true, 200, 5), (false, 502, 0)`); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		stream           bool
		before, answered int64
		want, wantErr    string
	}{
		{false, 0, 3, "3/3", ""},
		{true, 0, 1, "1/1", ""},
		{false, 1, 2, "2/2", ""},
		{false, 0, 2, "", "3 new records for 2 answered requests"},
	}
	for _, tt := range tests {
		got, err := checkRecords(db, tt.stream, tt.before, tt.answered)
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("checkRecords(%v, %d, %d): %v", tt.stream, tt.before, tt.answered, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("checkRecords(%v, %d, %d) error %v, want %q", tt.stream, tt.before, tt.answered, err, tt.wantErr)
		case got != tt.want:
			t.Errorf("checkRecords(%v, %d, %d) = %q, want %q", tt.stream, tt.before, tt.answered, got, tt.want)
		}
	}
	if got, err := checkRecords("", false, 0, 7); got != "-" || err != nil {
		t.Errorf("no database: %q, %v; want \"-\"", got, err)
	}
}
