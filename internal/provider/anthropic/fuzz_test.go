package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/provider"
	fakeanthropic "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/anthropic"
)

// fakeMaxOutput is the output limit of the fake's claude-fake-* models.
const fakeMaxOutput = 128000

// seedFiles returns the contents of the files matching pattern.
func seedFiles(f *testing.F, pattern string) [][]byte {
	files, _ := filepath.Glob(pattern)
	if len(files) == 0 {
		f.Fatalf("no seeds match %s", pattern)
	}
	var out [][]byte
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// FuzzRequest: any chat request body that is valid JSON translates into a
// request the strict fake accepts, or is refused with KindBadRequest; the
// client's body is never modified.
func FuzzRequest(f *testing.F) {
	for _, b := range seedFiles(f, "testdata/openai/*.json") {
		f.Add(b, uint16(0))
		f.Add(b, uint16(100))
	}
	for _, s := range []string{
		`{"messages":[{"role":"assistant","content":"x "}]}`,
		`{"messages":[{"role":"user","content":[{"type":"text","text":" "}]},{"role":"tool","tool_call_id":"a","content":"1"}]}`,
		`{"messages":[{"role":"user","content":"q"},{"role":"assistant","tool_calls":[{"id":"a.b","type":"function","function":{"name":"f g","arguments":"[1"}}]},{"role":"tool","tool_call_id":"a.b","content":[]}]}`,
		`{"messages":[{"role":"system","content":""}],"temperature":-1,"top_p":7,"max_tokens":-3,"stop":[" ",""]}`,
		`{"messages":[{"role":"user","content":"q"}],"tools":[{"type":"function","function":{"name":"f","parameters":{}}}],"tool_choice":{"type":"allowed_tools","allowed_tools":{"mode":"required","tools":[]}}}`,
	} {
		f.Add([]byte(s), uint16(0))
	}
	f.Fuzz(func(t *testing.T, body []byte, limit uint16) {
		if !json.Valid(body) {
			return
		}
		r := &provider.Request{Model: "m", UpstreamModel: "claude-fake-fuzz", Body: body, MaxOutputTokens: int(limit)}
		before := bytes.Clone(body)
		got, _, err := translateRequest(r, gjson.GetBytes(body, "stream").Bool())
		switch {
		case !bytes.Equal(before, body):
			t.Fatal("the client's body was modified")
		case err != nil:
			var pe *provider.Error
			if !errors.As(err, &pe) || pe.Kind != provider.KindBadRequest || pe.Message == "" {
				t.Fatalf("err = %v, want a KindBadRequest *provider.Error", err)
			}
		case limit == 0 && gjson.GetBytes(got, "max_tokens").Int() > fakeMaxOutput:
			// The client asked for more than the model gives, and the
			// catalogue does not say: the upstream answers 400.
		default:
			if err := fakeanthropic.Check(got); err != nil {
				t.Fatalf("the fake refuses the translation: %v\nin:  %s\nout: %s", err, body, got)
			}
		}
	})
}

// FuzzStream: any upstream body (truncated, garbage) translates into
// valid chunks, with one finish chunk and a usage chunk only when asked,
// or ends in a *provider.Error.
func FuzzStream(f *testing.F) {
	for _, b := range seedFiles(f, "testdata/anthropic/*.sse") {
		f.Add(b, false, false)
		f.Add(b, true, true)
		f.Add(b[:len(b)/2], true, false)
	}
	f.Add([]byte("event: message_delta\ndata: {\"delta\":{\"stop_reason\":\"tool_use\"}}\n\n"), true, true)
	f.Add([]byte("data: {\"type\":\"content_block_delta\",\"index\":-1,\"delta\":{\"type\":\"text_delta\",\"text\":\"\\u0000<\"}}\n\ndata: {\"type\":\"message_stop\"}\n\n"), false, false)
	f.Add([]byte("event: error\ndata: {\"type\":\"error\"}\n\n"), false, false)
	f.Fuzz(func(t *testing.T, body []byte, includeUsage, legacy bool) {
		ctx, cancel := context.WithCancel(context.Background())
		r := &provider.Request{Model: "m", IncludeUsage: includeUsage}
		s := newStream(ctx, cancel, io.NopCloser(bytes.NewReader(body)), newTranslator("anthropic", r, 1, legacy))
		defer s.Close()
		checkChunks(t, s, len(body)+10, includeUsage)
	})
}

// checkChunks reads at most n chunks of s.
func checkChunks(t *testing.T, s *stream, n int, includeUsage bool) {
	finishes, usages := 0, 0
	for range n {
		b, err := s.Next()
		var pe *provider.Error
		switch {
		case errors.Is(err, io.EOF):
			if finishes != 1 || includeUsage && usages != 1 {
				t.Fatalf("ended with %d finish and %d usage chunks", finishes, usages)
			}
			return
		case errors.As(err, &pe):
			return
		case err != nil:
			t.Fatalf("err = %v, want a *provider.Error", err)
		case !json.Valid(b):
			t.Fatalf("invalid chunk %q", b)
		}
		c := gjson.ParseBytes(b)
		if c.Get("choices.0.finish_reason").Str != "" {
			finishes++
		}
		if c.Get("usage").IsObject() {
			usages++
		}
		if usages > 0 && !includeUsage || finishes > 1 || usages > 1 {
			t.Fatalf("unexpected chunk %s", b)
		}
	}
	t.Fatal("the stream does not end")
}
