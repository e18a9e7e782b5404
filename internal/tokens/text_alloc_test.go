package tokens

import "testing"

// TestTextAddAllocs checks that a short streamed answer, added delta by
// delta, costs one allocation, not one per doubling of its buffer.
func TestTextAddAllocs(t *testing.T) {
	deltas := []string{"", "Hello", "", " there", ", how", " can I", " help", " you", " today", "?", ""}
	allocs := testing.AllocsPerRun(100, func() {
		var text Text
		for _, d := range deltas {
			text.Add(d)
		}
	})
	if allocs > 1 {
		t.Errorf("%v allocations to add a short answer, want at most 1", allocs)
	}
}
