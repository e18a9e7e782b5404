package envelope

import (
	"encoding/json"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	blocks := json.RawMessage(`[{"type":"thinking","thinking":"Let me see.","signature":"EqQBCkYIBx"},{"type":"redacted_thinking","data":"EmwKAhgB"}]`)
	s := Seal("anthropic", blocks)
	if !Is(s) {
		t.Fatalf("Is(%q) = false", s)
	}
	p, b, err := Open(s)
	if err != nil || p != "anthropic" || string(b) != string(blocks) {
		t.Fatalf("Open = %q, %s, %v; want anthropic, %s", p, b, err, blocks)
	}
}

func TestOpenRefuses(t *testing.T) {
	for _, s := range []string{"", "gAAAAABo", "swy1.", "swy1.!!!", "swy1.e30", Seal("", json.RawMessage(`[]`)),
		"swy1." + "eyJwIjoiYW50aHJvcGljIn0"} { // {"p":"anthropic"}: no blocks
		if _, _, err := Open(s); err == nil {
			t.Errorf("Open(%q) = nil error, want ErrNotEnvelope", s)
		}
	}
}
