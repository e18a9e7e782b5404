package main

import "testing"

// TestOpenCells: a target whose streams were never all open at once gets
// no RSS with all open nor a figure per stream, rather than a negative one.
func TestOpenCells(t *testing.T) {
	if all, per := openCells(37500, 0, 10000); all != "-" || per != "-" {
		t.Errorf("never all open: %q, %q; want \"-\", \"-\"", all, per)
	}
	if all, per := openCells(16200, 582300, 10000); all != "582.3 MB" || per != "56.6 KB" {
		t.Errorf("all open: %q, %q; want \"582.3 MB\", \"56.6 KB\"", all, per)
	}
}
