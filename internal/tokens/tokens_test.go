package tokens

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestCount(t *testing.T) {
	tests := []struct {
		model, text string
		want        int
	}{
		{"gpt-4o-mini", "", 0},
		{"gpt-4o-mini", "Hello, world!", 4},
		{"gpt-3.5-turbo", "Hello, world!", 4},
		{"gpt-4o", "tiktoken is great!", 6},
	}
	for _, tt := range tests {
		if got := Count(tt.model, tt.text); got != tt.want {
			t.Errorf("Count(%q, %q) = %d, want %d", tt.model, tt.text, got, tt.want)
		}
	}
	if got := Decode("gpt-3.5-turbo", []int{9906, 11, 1917, 0}); got != "Hello, world!" {
		t.Errorf("Decode = %q", got)
	}
}

// prose is varied text whose token count grows with its length.
func prose(n int) string {
	words := []string{"the", "gateway", "counts", "tokens", "of", "a", "prompt", "évidemment", "42", "naïve", "streams", "\n"}
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		b.WriteString(words[(i*7+i/3)%len(words)])
		b.WriteByte(' ')
	}
	return b.String()[:n]
}

// allocated returns the bytes fn allocates.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// Issue 13: counting a 22.8 MB prompt allocated ~980 MB and took seconds
// of CPU. A long text is sampled, so the cost stays that of MaxExact bytes.
func TestCountLongTextIsBounded(t *testing.T) {
	text := prose(1 << 20)
	Count("gpt-4o", "warm up") // load the encodings outside the measure
	var got int
	alloc := allocated(func() { got = Count("gpt-4o", text) })
	if limit := uint64(128 * MaxExact); alloc > limit {
		t.Errorf("counting 1 MiB allocated %d bytes, want at most %d", alloc, limit)
	}
	exact := len(encoding("gpt-4o").EncodeOrdinary(text))
	if d := float64(got-exact) / float64(exact); d < -0.02 || d > 0.02 {
		t.Errorf("Count = %d, exact %d: off by %.1f%%, want within 2%%", got, exact, 100*d)
	}
}

// Padding at the start of a long text must not skew the estimate: 128 KiB
// of spaces (one token per 128 bytes) then dense prose.
func TestCountSamplesTheWholeText(t *testing.T) {
	spaces, rest := strings.Repeat(" ", MaxExact), prose(512<<10)
	got := Count("gpt-4o", spaces+rest)
	exact := Count("gpt-4o", spaces) + len(encoding("gpt-4o").EncodeOrdinary(rest))
	if d := float64(got-exact) / float64(exact); d < -0.1 || d > 0.1 {
		t.Errorf("Count = %d, exact %d: off by %.1f%%, want within 10%%", got, exact, 100*d)
	}
}

// The encoder is quadratic in a run without word breaks: 128 KiB of one
// character took 20 s in one piece.
func TestCountLongRunIsFast(t *testing.T) {
	for _, unit := range []string{" ", "a", "="} {
		t.Run(strconv.Quote(unit), func(t *testing.T) {
			start := time.Now()
			got := Count("gpt-4o", strings.Repeat(unit, MaxExact))
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("counting %d bytes took %v, want under 3s", MaxExact, d)
			}
			if got < MaxExact/128 || got > MaxExact/2 {
				t.Errorf("Count = %d, want between %d and %d", got, MaxExact/128, MaxExact/2)
			}
		})
	}
}

func TestText(t *testing.T) {
	tests := []struct {
		name   string
		pieces []string
	}{
		{"empty", nil},
		{"short", []string{"Hello", ", ", "world!"}},
		{"past the bound", []string{prose(MaxExact - 3), "é€ and more", prose(3 * MaxExact)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var x Text
			for _, p := range tt.pieces {
				x.Add(p)
			}
			if x.b.Len() > MaxExact {
				t.Errorf("kept %d bytes, want at most %d", x.b.Len(), MaxExact)
			}
			got, want := x.Count("gpt-4o-mini"), Count("gpt-4o-mini", strings.Join(tt.pieces, ""))
			if d := got - want; d < -want/50 || d > want/50 {
				t.Errorf("Count = %d, want %d within 2%%", got, want)
			}
		})
	}
}

func BenchmarkCount(b *testing.B) {
	for _, n := range []int{1 << 10, 22_800_000} {
		text := prose(n)
		b.Run(strconv.Itoa(n)+"B", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Count("gpt-4o", text)
			}
		})
	}
}
