package gateway

import (
	"regexp"
	"testing"
	"time"
)

// TestRecordID checks the shape of record IDs (the time in base 32, then
// 10 random lower-case base-32 characters), that they sort by time, and
// that IDs of the same instant differ.
func TestRecordID(t *testing.T) {
	shape := regexp.MustCompile(`^usg_[0-9a-v]{1,13}[a-z2-7]{10}$`)
	base := time.Date(2026, 11, 26, 7, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		at   time.Time
	}{
		{"now", base},
		{"a nanosecond later", base.Add(time.Nanosecond)},
		{"a year later", base.AddDate(1, 0, 0)},
	}
	prev := ""
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := recordID(tt.at)
			if !shape.MatchString(id) {
				t.Errorf("recordID = %q, not of the shape %s", id, shape)
			}
			if id <= prev {
				t.Errorf("recordID = %q sorts before the earlier %q", id, prev)
			}
			prev = id
		})
	}
	seen := map[string]bool{}
	for range 1000 {
		id := recordID(base)
		if seen[id] {
			t.Fatalf("recordID repeated %q", id)
		}
		seen[id] = true
	}
}
