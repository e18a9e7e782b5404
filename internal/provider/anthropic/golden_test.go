package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/fixture"
	"github.com/switchyard-gw/switchyard/internal/provider"
	fakeanthropic "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/anthropic"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// goldenCreated is the created time of translated answers in golden files.
const goldenCreated = 1754929200

// golden compares got with testdata/name, or rewrites the file with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
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
		t.Errorf("%s mismatch (-want +got):\n%s", name, diff)
	}
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func indent(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Indent(&buf, b, "", "  "); err != nil {
		t.Fatalf("invalid JSON %s: %v", b, err)
	}
	return append(buf.Bytes(), '\n')
}

// describe renders an error for golden files and failure messages.
func describe(err error) string {
	var pe *provider.Error
	if !errors.As(err, &pe) {
		return "error: " + err.Error()
	}
	return fmt.Sprintf("error: kind=%s type=%q code=%q param=%q retry_after=%s message=%q",
		kindName(pe.Kind), pe.Type, pe.Code, pe.Param, pe.RetryAfter, pe.Message)
}

func kindName(k provider.Kind) string {
	names := []string{"bad_request", "auth", "not_found", "rate_limit", "unavailable", "overloaded", "timeout", "canceled", "no_endpoint"}
	if int(k) < len(names) {
		return names[k]
	}
	return fmt.Sprint(int(k))
}

// OpenAI request fixtures → Anthropic request bodies. Every body must pass
// the strict fake's checks.
func TestRequestGolden(t *testing.T) {
	files := fixture.Glob(t, "testdata/openai/*.json")
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		t.Run(name, func(t *testing.T) {
			body := readFile(t, f)
			r := goldenRequest(t, body)
			stream := gjson.GetBytes(body, "stream").Bool()
			got, legacy, err := translateRequest(r, stream)
			if err != nil {
				golden(t, "request_"+name+".golden", []byte(describe(err)+"\n"))
				return
			}
			if err := fakeanthropic.Check(got); err != nil {
				t.Errorf("the fake refuses the translation: %v\n%s", err, got)
			}
			if want := gjson.GetBytes(body, "functions").Exists(); legacy != want {
				t.Errorf("legacy = %v, want %v", legacy, want)
			}
			golden(t, "request_"+name+".golden", indent(t, got))
		})
	}
}

// goldenRequest is the request for a fixture: a Claude model of the
// catalogue named in the body gets its upstream ID, limit, reasoning and
// structured outputs from there; any other model is Claude Sonnet 4.5
// without reasoning or structured outputs.
func goldenRequest(t *testing.T, body []byte) *provider.Request {
	t.Helper()
	r := &provider.Request{Model: "client-model", UpstreamModel: "claude-sonnet-4-5-20250929", Body: body, MaxOutputTokens: 64000}
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := cat.Lookup(gjson.GetBytes(body, "model").Str); ok && m.Provider == "anthropic" {
		r.Model, r.UpstreamModel, r.MaxOutputTokens = m.ID, m.UpstreamID, m.MaxOutputTokens
		r.Reasoning, r.StructuredOutputs = m.Reasoning, m.StructuredOutputs
	}
	return r
}

// Anthropic response fixtures → chat.completion bodies.
func TestResponseGolden(t *testing.T) {
	files := fixture.Glob(t, "testdata/anthropic/messages_response_*.json")
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		for _, legacy := range []bool{false, true} {
			out := name
			if legacy {
				if !strings.Contains(name, "tool_use") {
					continue
				}
				out += "_legacy"
			}
			t.Run(out, func(t *testing.T) {
				got, u, err := completionOf("anthropic", readFile(t, f), "client-model", goldenCreated, legacy)
				if err != nil {
					t.Fatal(err)
				}
				b := append(indent(t, got), fmt.Sprintf("provider usage: %+v\n", u)...)
				golden(t, "response_"+out+".golden", b)
			})
		}
	}
}

// Anthropic stream fixtures → chat.completion.chunk streams, with and
// without include_usage, and for a legacy functions client.
func TestStreamGolden(t *testing.T) {
	files := fixture.Glob(t, "testdata/anthropic/messages_stream_*.sse")
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".sse")
		for _, v := range []struct {
			suffix        string
			usage, legacy bool
		}{{"_usage", true, false}, {"_no_usage", false, false}, {"_legacy", false, true}} {
			if v.legacy && !strings.Contains(name, "tool_use") {
				continue
			}
			t.Run(name+v.suffix, func(t *testing.T) {
				r := &provider.Request{Model: "client-model", IncludeUsage: v.usage}
				golden(t, "stream_"+name+v.suffix+".golden", runStream(t, readFile(t, f), r, v.legacy))
			})
		}
	}
}

// runStream translates an upstream body as the client would receive it:
// "data: <chunk>" events, then [DONE] or the error, then the usage.
func runStream(t testing.TB, body []byte, r *provider.Request, legacy bool) []byte {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := newStream(ctx, cancel, io.NopCloser(bytes.NewReader(body)), newTranslator("anthropic", r, goldenCreated, legacy))
	defer s.Close()
	var out bytes.Buffer
	for {
		b, err := s.Next()
		if errors.Is(err, io.EOF) {
			out.WriteString("data: [DONE]\n\n")
			break
		}
		if err != nil {
			out.WriteString(describe(err) + "\n")
			break
		}
		if !json.Valid(b) {
			t.Fatalf("invalid chunk JSON: %s", b)
		}
		fmt.Fprintf(&out, "data: %s\n\n", b)
	}
	fmt.Fprintf(&out, "provider usage: %+v\n", s.Usage())
	return out.Bytes()
}
