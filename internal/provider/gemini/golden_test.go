package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchyard-gw/switchyard/internal/fixture"
	"github.com/switchyard-gw/switchyard/internal/provider"
	fakegemini "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/gemini"
)

var update = flag.Bool("update", false, "rewrite testdata/*/*.golden")

// testEnv makes times and IDs deterministic: the random texts are
// RANDAAAAAAAB, RANDAAAAAAAC, … in the order they are made.
func testEnv() env {
	var n atomic.Int64
	return env{
		now: func() time.Time { return time.Unix(1754929200, 0) },
		rand: func() string {
			b := []byte("RANDAAAAAAAAXXXXXXXXXXXXXX")
			for i, v := 11, n.Add(1); v > 0; i, v = i-1, v/26 {
				b[i] = byte('A' + v%26)
			}
			return string(b)
		},
	}
}

// golden compares got with the golden file, or rewrites it with -update.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}

// indent pretty-prints JSON for a readable golden file.
func indent(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		t.Fatalf("invalid JSON %v: %s", err, b)
	}
	return append(out.Bytes(), '\n')
}

// describeErr renders an error for a golden file.
func describeErr(err error) string {
	var pe *provider.Error
	if errors.As(err, &pe) {
		return fmt.Sprintf("error: kind=%d status=%d param=%q code=%q message=%q err=%v\n", pe.Kind, pe.Status, pe.Param, pe.Code, pe.Message, pe.Err)
	}
	return "error: " + err.Error() + "\n"
}

// upstreamModel is the Gemini model a golden input is translated for.
func upstreamModel(name string) string {
	if strings.HasPrefix(name, "gemini3_") {
		return "gemini-3-flash-preview"
	}
	return "gemini-2.5-flash"
}

// TestRequestGolden translates OpenAI chat bodies (the shared fixtures and
// cases of our own) into Gemini bodies.
func TestRequestGolden(t *testing.T) {
	files := fixture.Glob(t, "testdata/request/*.json")
	for _, in := range files {
		name := strings.TrimSuffix(filepath.Base(in), ".json")
		t.Run(name, func(t *testing.T) {
			body, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			model := upstreamModel(name)
			r := &provider.Request{Model: "client-model", UpstreamModel: model, Reasoning: reasoningOf(model), Body: body}
			req, err := translateChat(r)
			var got []byte
			if err != nil {
				got = []byte(describeErr(err))
			} else {
				got = indent(t, req.body)
				// The strict fake takes what the adapter sends.
				if err := fakegemini.CheckGenerate(model, req.body); err != nil && !errors.Is(err, fakegemini.ErrUnknownSignature) {
					t.Errorf("the fake refuses the translation: %v", err)
				}
			}
			golden(t, strings.TrimSuffix(in, ".json")+".golden", got)
		})
	}
}

// TestRequestMatchesFixture checks our translation of OpenAI's tools
// fixture against the Gemini fixture of the same request. The two
// fixtures' prompts differ, so contents are not compared.
func TestRequestMatchesFixture(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"testdata/request/chat_request_tools.json", "testdata/generate_request_forced_function.json"},
	} {
		t.Run(filepath.Base(tt.in), func(t *testing.T) {
			body, _ := os.ReadFile(tt.in)
			req, err := translateChat(&provider.Request{UpstreamModel: "gemini-2.5-flash", Body: body})
			if err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(tt.want)
			want, got := decode(t, b).(map[string]any), decode(t, req.body).(map[string]any)
			delete(want, "contents")
			delete(got, "contents")
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("translation differs from the Gemini fixture (-want +got):\n%s", diff)
			}
		})
	}
}

func decode(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return v
}

// TestResponseGolden translates Gemini answers into chat.completions.
// Inputs named legacy_* answer a client that used functions.
func TestResponseGolden(t *testing.T) {
	files := fixture.Glob(t, "testdata/response/*.json")
	for _, in := range files {
		name := strings.TrimSuffix(filepath.Base(in), ".json")
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			tr := newTranslator("gemini", chatReq(), chatRequest{legacy: strings.HasPrefix(name, "legacy_")}, testEnv())
			out, u, err := tr.chatResponse(b)
			var got []byte
			if err != nil {
				got = []byte(describeErr(err))
			} else {
				got = append(indent(t, out), fmt.Sprintf("usage: %+v\n", u)...)
			}
			golden(t, strings.TrimSuffix(in, ".json")+".golden", got)
		})
	}
}

// chatReq is the client request the response goldens answer.
func chatReq() *provider.Request {
	return &provider.Request{Model: "gemini-2.5-flash", UpstreamModel: "gemini-2.5-flash",
		Body: []byte(`{"model":"gemini-2.5-flash","messages":[{"role":"user","content":"Say hello."}]}`)}
}

// TestStreamGolden translates Gemini SSE streams into chunks, with and
// without include_usage; inputs named legacy_* answer a functions client.
func TestStreamGolden(t *testing.T) {
	files := fixture.Glob(t, "testdata/stream/*.sse")
	for _, in := range files {
		for _, usage := range []bool{true, false} {
			name := strings.TrimSuffix(filepath.Base(in), ".sse")
			out := strings.TrimSuffix(in, ".sse") + ".golden"
			if !usage {
				out = strings.TrimSuffix(in, ".sse") + ".nousage.golden"
			}
			t.Run(fmt.Sprintf("%s/usage=%v", name, usage), func(t *testing.T) {
				b, err := os.ReadFile(in)
				if err != nil {
					t.Fatal(err)
				}
				r := chatReq()
				r.Stream, r.IncludeUsage = true, usage
				tr := newTranslator("gemini", r, chatRequest{legacy: strings.HasPrefix(name, "legacy_")}, testEnv())
				got, _ := drain(t, newStream(tr, t.Context(), io.NopCloser(bytes.NewReader(b)), nil))
				golden(t, out, got)
			})
		}
	}
}

// drain reads a stream to its end as client SSE, ending in [DONE] or the
// error, and returns the usage.
func drain(t *testing.T, s provider.Stream) ([]byte, provider.Usage) {
	t.Helper()
	defer s.Close()
	var out []byte
	for range 10000 {
		c, err := s.Next()
		if errors.Is(err, io.EOF) {
			out = append(out, "data: [DONE]\n\n"...)
			return append(out, fmt.Sprintf("usage: %+v\n", s.Usage())...), s.Usage()
		}
		if err != nil {
			return append(out, describeErr(err)...), s.Usage()
		}
		if !json.Valid(c) {
			t.Fatalf("chunk is not JSON: %s", c)
		}
		out = append(append(append(out, "data: "...), c...), "\n\n"...)
	}
	t.Fatal("stream does not end")
	return nil, provider.Usage{}
}
