package jsonscan_test

import (
	"testing"

	"github.com/switchyard-gw/switchyard/internal/jsonscan"
)

func TestView(t *testing.T) {
	for _, b := range [][]byte{nil, {}, []byte(`{"a":1}`)} {
		if got := jsonscan.View(b); got != string(b) {
			t.Errorf("View(%q) = %q", b, got)
		}
	}
}
