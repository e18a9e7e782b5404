package catalog

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNearest(t *testing.T) {
	ids := []string{"gpt-4o", "gpt-4o-mini", "claude-haiku-4-5", "gemini-2.5-flash"}
	tests := []struct {
		s      string
		prefix bool
		want   []string
	}{
		{"gpt-4o-mnii", false, []string{"gpt-4o-mini"}},
		{"claude-haiku-4.5", false, []string{"claude-haiku-4-5"}},
		{"gpt-4", false, []string{"gpt-4o"}},
		{"zzzzzzzz", false, []string{}},
		{"", false, []string{}},
		{"gemni-", true, []string{"gemini-*", "gemini*"}},
	}
	for _, tt := range tests {
		if got := Nearest(tt.s, tt.prefix, ids, 3); !cmp.Equal(tt.want, got) {
			t.Errorf("Nearest(%q, %t) = %q, want %q", tt.s, tt.prefix, got, tt.want)
		}
	}
}
