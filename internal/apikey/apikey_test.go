package apikey

import (
	"crypto/sha256"
	"strings"
	"testing"
)

const secret = "AbCdEfGhIjKlMnOpQrStUvWxYz012345"

func TestSecret(t *testing.T) {
	tests := []struct {
		name, key string
		ok        bool
	}{
		{"full form", Prefix + secret, true},
		{"short form", ShortPrefix + secret, true},
		{"empty", "", false},
		{"prefix only", Prefix, false},
		{"short secret", Prefix + secret[:31], false},
		{"long secret", Prefix + secret + "6", false},
		{"upper-case prefix", "SK-SWITCHYARD-" + secret, false},
		{"other service", "sk-proj-" + secret, false},
		{"openai style", "sk-" + secret, false},
		{"dash in secret", Prefix + secret[:31] + "-", false},
		{"underscore in secret", Prefix + "_" + secret[1:], false},
		{"space in secret", Prefix + secret[:16] + " " + secret[17:], false},
		{"trailing newline", Prefix + secret[:31] + "\n", false},
		{"leading space", " " + Prefix + secret, false},
		{"non-ascii letter", Prefix + secret[:30] + "é", false},
		{"double prefix", Prefix + ShortPrefix + secret[:29], false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Secret(tt.key)
			if (err == nil) != tt.ok {
				t.Fatalf("Secret(%q) err = %v, want ok=%v", tt.key, err, tt.ok)
			}
			if tt.ok && got != secret {
				t.Errorf("Secret(%q) = %q, want %q", tt.key, got, secret)
			}
		})
	}
}

func TestBothPrefixesAreOneKey(t *testing.T) {
	a, errA := Parse(Prefix + secret)
	b, errB := Parse(ShortPrefix + secret)
	if errA != nil || errB != nil || a != b {
		t.Fatalf("hashes differ: %v %v", errA, errB)
	}
	if a != sha256.Sum256([]byte(secret)) {
		t.Error("hash is not SHA-256 of the secret")
	}
	lower, _ := Parse(Prefix + strings.ToLower(secret))
	if lower == a {
		t.Error("keys are case-insensitive")
	}
}

func TestGenerate(t *testing.T) {
	seen := map[string]bool{}
	counts := map[byte]int{}
	for range 2000 {
		k := Generate()
		if _, err := Parse(k); err != nil || !strings.HasPrefix(k, Prefix) {
			t.Fatalf("Generate() = %q: %v", k, err)
		}
		if seen[k] {
			t.Fatalf("duplicate key %q", k)
		}
		seen[k] = true
		for i := len(Prefix); i < len(k); i++ {
			counts[k[i]]++
		}
	}
	// 64000 characters over 62 symbols: about 1032 each. A biased or
	// truncated alphabet shows up far outside these bounds.
	if len(counts) != len(alphabet) {
		t.Errorf("used %d distinct characters, want %d", len(counts), len(alphabet))
	}
	for c, n := range counts {
		if n < 800 || n > 1300 {
			t.Errorf("character %q drawn %d times, want about 1032", c, n)
		}
	}
}

func TestHint(t *testing.T) {
	if got, want := Hint(ShortPrefix+secret), Prefix+"…2345"; got != want {
		t.Errorf("Hint = %q, want %q", got, want)
	}
	if got := Hint("nonsense"); got != "" {
		t.Errorf("Hint of a malformed key = %q", got)
	}
}

func TestParseHash(t *testing.T) {
	h, _ := Parse(Prefix + secret)
	back, err := ParseHash(h.String())
	if err != nil || back != h {
		t.Errorf("round trip: %v", err)
	}
	if _, err := ParseHash("zz"); err == nil {
		t.Error("ParseHash accepted garbage")
	}
}

func TestCheckName(t *testing.T) {
	tests := []struct {
		name, in string
		want     error
	}{
		{"plain", "CI pipeline", nil},
		{"unicode", "Équipe données 🚀", nil},
		{"longest", strings.Repeat("é", MaxNameLength), nil},
		{"empty", "", ErrNameEmpty},
		{"too long", strings.Repeat("é", MaxNameLength+1), ErrNameTooLong},
		{"NUL", "a\x00b", ErrNameNotText},
		{"newline", "a\nb", ErrNameNotText},
		{"escape sequence", "ci\x1b[31m", ErrNameNotText},
		{"DEL", "a\x7fb", ErrNameNotText},
		{"C1 control", "a\u0085b", ErrNameNotText},
		{"not UTF-8", "\xff\xfe", ErrNameNotText},
		{"long and not UTF-8", strings.Repeat("\xff", MaxNameLength+1), ErrNameNotText},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CheckName(tt.in); got != tt.want {
				t.Errorf("CheckName(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}
