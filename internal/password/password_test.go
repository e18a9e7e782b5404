package password

import (
	"strings"
	"testing"
)

func TestHashAndCheck(t *testing.T) {
	h, err := Hash("correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=65536,t=3,p=2$") {
		t.Errorf("hash %q is not argon2id with the chosen parameters", h)
	}
	if strings.Contains(h, "correct horse") {
		t.Error("hash contains the password")
	}
	if !Check("correct horse battery", h) {
		t.Error("right password refused")
	}
	for _, wrong := range []string{"", "correct horse batter", "Correct horse battery", "correct horse battery "} {
		if Check(wrong, h) {
			t.Errorf("wrong password %q accepted", wrong)
		}
	}
	if Check("anything", "") || Check("anything", "not-a-hash") {
		t.Error("empty or broken hash matched")
	}
	h2, _ := Hash("correct horse battery")
	if h2 == h {
		t.Error("two hashes of one password are equal: no salt")
	}
	if _, err := Hash("short"); err != ErrTooShort {
		t.Errorf("short password: %v", err)
	}
}
