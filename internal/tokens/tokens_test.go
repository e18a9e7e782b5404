package tokens

import "testing"

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
