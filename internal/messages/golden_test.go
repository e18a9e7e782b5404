package messages

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/fixture"
	"github.com/switchyard-gw/switchyard/internal/gateway"
	"github.com/switchyard-gw/switchyard/internal/provider"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

var _ gateway.Translator = (*Translator)(nil)

// golden compares got with testdata/name, or rewrites the file with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	fixture.Golden(t, filepath.Join("testdata", name), got, *update)
}

func readFile(t testing.TB, p string) []byte { return fixture.Read(t, p) }

func indent(t *testing.T, b []byte) []byte { return fixture.Indent(t, b) }

func base(f, ext string) string { return strings.TrimSuffix(filepath.Base(f), ext) }

// Messages request fixtures → chat completions bodies.
func TestRequestGolden(t *testing.T) {
	for _, f := range fixture.Glob(t, "testdata/anthropic/request_*.json") {
		name := base(f, ".json")
		t.Run(name, func(t *testing.T) {
			r, err := Parse(readFile(t, f))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			got, err := r.Chat()
			if err != nil {
				t.Fatal(err)
			}
			if s := gjson.GetBytes(got, "stream").Bool(); s != r.Stream || s != gjson.GetBytes(got, "stream_options.include_usage").Bool() {
				t.Errorf("stream %v, request's %v, include_usage %s", s, r.Stream, gjson.GetBytes(got, "stream_options"))
			}
			golden(t, "chat_"+name+".golden", indent(t, got))
		})
	}
}

// chatUsage reads a chat completion's usage as an adapter would.
func chatUsage(u gjson.Result) provider.Usage {
	return provider.Usage{PromptTokens: int(u.Get("prompt_tokens").Int()), CompletionTokens: int(u.Get("completion_tokens").Int()),
		TotalTokens: int(u.Get("total_tokens").Int()), CachedTokens: int(u.Get("prompt_tokens_details.cached_tokens").Int()),
		ReasoningTokens: int(u.Get("completion_tokens_details.reasoning_tokens").Int())}
}

func testRequest(t *testing.T) *Request {
	t.Helper()
	r, err := Parse(readFile(t, "testdata/anthropic/request_tools.json"))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Chat completions → Messages responses; where a Messages fixture of the
// same name exists, the translation must have its content, stop reason
// and model.
func TestResponseGolden(t *testing.T) {
	for _, f := range fixture.Glob(t, "testdata/chat/response_*.json") {
		name := base(f, ".json")
		t.Run(name, func(t *testing.T) {
			body := readFile(t, f)
			resp, err := testRequest(t).Translator().Response(&provider.Response{Body: body, Usage: chatUsage(gjson.GetBytes(body, "usage"))})
			if err != nil {
				t.Fatal(err)
			}
			golden(t, "messages_"+name+".golden", indent(t, resp.Body))
			want, err := os.ReadFile(filepath.Join("testdata/anthropic", name+".json"))
			if err != nil {
				return // a case with no Messages fixture
			}
			for _, field := range []string{"content", "stop_reason", "stop_sequence", "model", "type", "role", "usage.output_tokens", "usage.cache_read_input_tokens"} {
				w, g := gjson.GetBytes(want, field), gjson.GetBytes(resp.Body, field)
				if diff := cmp.Diff(normalize(t, w.Raw), normalize(t, g.Raw)); diff != "" {
					t.Errorf("%s differs from the fixture (-want +got):\n%s", field, diff)
				}
			}
		})
	}
}

func normalize(t *testing.T, raw string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		t.Fatalf("%q: %v", raw, err)
	}
	return v
}

// fileStream replays chat chunks, one a line; a line "!error" fails the
// stream there. Usage comes from the usage chunk, as an adapter's.
type fileStream struct {
	sc    *bufio.Scanner
	usage provider.Usage
}

var errUpstream = errors.New("upstream overloaded")

func (s *fileStream) Next() ([]byte, error) {
	if !s.sc.Scan() {
		return nil, io.EOF
	}
	line := s.sc.Bytes()
	if string(line) == "!error" {
		return nil, errUpstream
	}
	if u := gjson.GetBytes(line, "usage"); u.IsObject() {
		s.usage = chatUsage(u)
	}
	return line, nil
}

func (s *fileStream) Usage() provider.Usage { return s.usage }
func (s *fileStream) Close() error          { return nil }

// events reads a translated stream as SSE text, the error that ended it
// as a last line.
func events(st provider.Stream) []byte {
	var b bytes.Buffer
	for {
		ev, err := st.Next()
		if errors.Is(err, io.EOF) {
			return b.Bytes()
		}
		if err != nil {
			b.WriteString("error: " + err.Error() + "\n")
			return b.Bytes()
		}
		b.WriteString("event: " + gjson.GetBytes(ev, "type").Str + "\ndata: " + string(ev) + "\n\n")
	}
}

// Chat streams → Messages events; where a Messages fixture of the same
// name exists, the translation must have its blocks (the concatenated
// deltas of each), its stop reason and its output tokens.
func TestStreamGolden(t *testing.T) {
	for _, f := range fixture.Glob(t, "testdata/chat/stream_*.jsonl") {
		name := base(f, ".jsonl")
		t.Run(name, func(t *testing.T) {
			in := &fileStream{sc: bufio.NewScanner(bytes.NewReader(readFile(t, f)))}
			in.sc.Buffer(nil, 1<<20)
			got := events(testRequest(t).Translator().Stream(in))
			golden(t, "messages_"+name+".golden", got)
			want, err := os.ReadFile(filepath.Join("testdata/anthropic", name+".sse"))
			if err != nil {
				return
			}
			if diff := cmp.Diff(summary(t, want), summary(t, got)); diff != "" {
				t.Errorf("differs from the fixture (-want +got):\n%s", diff)
			}
		})
	}
}
