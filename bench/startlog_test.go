package main

import (
	"os"
	"path/filepath"
	"testing"
)

// readStartLog finds the addresses the gateway announced in its log file,
// skipping lines that are not JSON, and says not yet listening until the
// listening line is there.
func TestReadStartLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.log")
	steps := []struct {
		add       string
		listening bool
		url, prof string
	}{
		{"", false, "", ""},
		{"not json\n{\"msg\":\"pprof listening\",\"addr\":\"127.0.0.1:7\"}\n", false, "", "http://127.0.0.1:7"},
		{"{\"msg\":\"migrated\"}\n{\"msg\":\"switchyard listening\",\"addr\":\"127.0.0.1:8\"}\n", true, "http://127.0.0.1:8", "http://127.0.0.1:7"},
	}
	var text string
	for i, st := range steps {
		text += st.add
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		var g gateway
		listening, err := readStartLog(path, &g)
		if err != nil || listening != st.listening || g.url != st.url || g.pprof != st.prof {
			t.Errorf("step %d: listening %v, url %q, pprof %q, err %v; want %v, %q, %q",
				i, listening, g.url, g.pprof, err, st.listening, st.url, st.prof)
		}
	}
}
