package responses

import (
	"encoding/json"
	"errors"
	"flag"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/fixture"
	"github.com/switchyard-gw/switchyard/internal/provider"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	fixture.Golden(t, filepath.Join("testdata", name), got, *update)
}

// decode returns b as generic JSON, for comparing documents whatever
// their spacing and number spelling.
func decode(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("invalid JSON %s: %v", b, err)
	}
	return v
}

// dropKey deletes key from every object in v, recursively.
func dropKey(v any, key string) any {
	switch x := v.(type) {
	case map[string]any:
		delete(x, key)
		for _, y := range x {
			dropKey(y, key)
		}
	case []any:
		for _, y := range x {
			dropKey(y, key)
		}
	}
	return v
}

// fixedIDs returns an id source handing out ids in order, each the next
// unused one with the asked prefix; it fails t when it runs out.
func fixedIDs(t *testing.T, ids []string) func(string) string {
	used := make([]bool, len(ids))
	return func(prefix string) string {
		for i, id := range ids {
			if !used[i] && strings.HasPrefix(id, prefix) {
				used[i] = true
				return id
			}
		}
		t.Errorf("no id left with prefix %q", prefix)
		return prefix + "missing"
	}
}

// testTranslator returns a translator with ids and clock fixed.
func testTranslator(t *testing.T, r *Request, id string, created, completed int64, ids []string) *Translator {
	tr := r.NewTranslator(id, created)
	tr.newID = fixedIDs(t, ids)
	tr.now = func() time.Time { return time.Unix(completed, 0) }
	return tr
}

// fakeStream replays chat chunks, then fails with err (io.EOF when nil).
type fakeStream struct {
	chunks [][]byte
	err    error
	usage  provider.Usage
	closed bool
}

func (s *fakeStream) Next() ([]byte, error) {
	if len(s.chunks) == 0 {
		if s.err != nil {
			return nil, s.err
		}
		return nil, io.EOF
	}
	c := s.chunks[0]
	s.chunks = s.chunks[1:]
	return c, nil
}

func (s *fakeStream) Usage() provider.Usage { return s.usage }
func (s *fakeStream) Close() error          { s.closed = true; return nil }

// errUpstream is the failure of a chat stream file's "ERROR …" line.
var errUpstream = errors.New("upstream failed")

// readChunks reads a .jsonl file of chat chunks; a line "ERROR …" makes
// the stream fail there.
func readChunks(t *testing.T, path string) *fakeStream {
	t.Helper()
	s := &fakeStream{}
	for _, line := range strings.Split(strings.TrimSpace(string(fixture.Read(t, path))), "\n") {
		if strings.HasPrefix(line, "ERROR") {
			s.err = errUpstream
			break
		}
		if !gjson.Valid(line) {
			t.Fatalf("%s: invalid chunk %s", path, line)
		}
		s.chunks = append(s.chunks, []byte(line))
	}
	return s
}

// drain returns every event of st and the error that ended it (nil for
// io.EOF).
func drain(t *testing.T, st provider.Stream) ([][]byte, error) {
	t.Helper()
	var events [][]byte
	for range 10000 {
		b, err := st.Next()
		if errors.Is(err, io.EOF) {
			return events, nil
		}
		if err != nil {
			return events, err
		}
		events = append(events, append([]byte(nil), b...))
	}
	t.Fatal("stream does not end")
	return nil, nil
}

// readSSE returns the data of each event of an .sse fixture, checking
// that each event: line names the data's type.
func readSSE(t *testing.T, path string) [][]byte {
	t.Helper()
	var events [][]byte
	for _, block := range strings.Split(strings.TrimSpace(string(fixture.Read(t, path))), "\n\n") {
		lines := strings.Split(block, "\n")
		if len(lines) != 2 || !strings.HasPrefix(lines[0], "event: ") || !strings.HasPrefix(lines[1], "data: ") {
			t.Fatalf("%s: bad event %q", path, block)
		}
		data := []byte(strings.TrimPrefix(lines[1], "data: "))
		if typ := gjson.GetBytes(data, "type").Str; typ != strings.TrimPrefix(lines[0], "event: ") {
			t.Fatalf("%s: event %s carries type %s", path, lines[0], typ)
		}
		events = append(events, data)
	}
	return events
}

// parse parses a request file, failing t on error.
func parse(t *testing.T, path string) *Request {
	t.Helper()
	r, err := Parse(fixture.Read(t, path))
	if err != nil {
		t.Fatalf("Parse(%s): %v", path, err)
	}
	return r
}
