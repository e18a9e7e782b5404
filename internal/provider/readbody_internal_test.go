package provider

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"
)

func TestReadBody(t *testing.T) {
	tests := []struct {
		name     string
		body     io.Reader
		declared int64
		max      int64
		want     string
		wantErr  bool
	}{
		{"declared", strings.NewReader(`{"a":1}`), 7, 100, `{"a":1}`, false},
		{"empty", strings.NewReader(``), 0, 100, ``, false},
		{"unknown length", strings.NewReader(`{"a":1}`), -1, 100, `{"a":1}`, false},
		{"unknown length over max", strings.NewReader(`{"a":1}`), -1, 3, `{"a`, false},
		{"declared over max", strings.NewReader(`{"a":1}`), 7, 3, `{"a`, false},
		{"longer than declared", strings.NewReader(`{"a":1}`), 3, 100, ``, true},
		{"shorter than declared", strings.NewReader(`{"a":1}`), 9, 100, `{"a":1}`, false},
		{"cut", io.MultiReader(strings.NewReader(`{"a"`), iotest.ErrReader(io.ErrUnexpectedEOF)), 7, 100, ``, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := &http.Response{Body: io.NopCloser(tt.body), ContentLength: tt.declared}
			got, err := readBody(resp, tt.max)
			if (err != nil) != tt.wantErr {
				t.Fatalf("readBody error %v, want error %v", err, tt.wantErr)
			}
			if !tt.wantErr && string(got) != tt.want {
				t.Errorf("readBody = %q, want %q", got, tt.want)
			}
		})
	}
}
