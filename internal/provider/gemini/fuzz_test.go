package gemini

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/fixture"
	"github.com/switchyard-gw/switchyard/internal/provider"
	fakegemini "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/gemini"
)

// FuzzRequest: any JSON body translates without panicking into a request
// the strict fake accepts, or into a KindBadRequest naming the problem.
func FuzzRequest(f *testing.F) {
	for _, name := range fixture.Glob(f, "testdata/request/*.json") {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b, false)
			f.Add(b, true)
		}
	}
	for _, s := range []string{
		`{"messages":[{"role":"user","content":"hi"}]}`,
		`{"messages":[{"role":"assistant","content":"x"},{"role":"user","content":[{"type":"text","text":"y"}]}],"stop":["a","b"]}`,
		`{"messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{"a":{"anyOf":[{"type":"null"},{"type":"array","items":{"$ref":"#/$defs/x"}}]}},"$defs":{"x":{"const":3}}}}}]}`,
		`{"messages":[]}`, `[]`, `null`, `{"messages":[{"role":"tool"}]}`,
	} {
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, body []byte, gemini3 bool) {
		if !gjson.ValidBytes(body) {
			return
		}
		model := "gemini-2.5-flash"
		if gemini3 {
			model = "gemini-3-flash-preview"
		}
		req, err := translateChat(&provider.Request{Model: "m", UpstreamModel: model, Body: body})
		if err != nil {
			var pe *provider.Error
			if !errors.As(err, &pe) || pe.Kind != provider.KindBadRequest || pe.Message == "" {
				t.Fatalf("error %v: want a KindBadRequest with a message", err)
			}
			return
		}
		// A signature carried by a client's tool-call ID is put back as
		// given; only Google can tell whether it is genuine.
		if err := fakegemini.CheckGenerate(model, req.body); err != nil && !errors.Is(err, fakegemini.ErrUnknownSignature) {
			t.Fatalf("the fake refuses the translation: %v\nbody: %s\ntranslated: %s", err, body, req.body)
		}
	})
}

// FuzzStream: any bytes as an upstream SSE body translate without
// panicking into valid JSON chunks, ending in io.EOF or a *provider.Error.
func FuzzStream(f *testing.F) {
	for _, name := range fixture.Glob(f, "testdata/stream/*.sse") {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b, true, false)
			f.Add(b[:len(b)/2], false, true)
		}
	}
	f.Add([]byte("data: {\"candidates\":[{\"index\":7,\"finishReason\":\"STOP\"}]}\n\n"), true, false)
	f.Add([]byte("data: {\"error\":{\"code\":99}}\r\n\r\n"), false, false)
	f.Add([]byte("\xff\xfe garbage"), true, true)
	f.Fuzz(func(t *testing.T, body []byte, usage, legacy bool) {
		r := chatReq()
		r.Stream, r.IncludeUsage = true, usage
		tr := newTranslator("g", r, chatRequest{legacy: legacy}, testEnv())
		s := newStream(tr, t.Context(), io.NopCloser(bytes.NewReader(body)), nil)
		defer s.Close()
		for i := 0; ; i++ {
			if i > 4*len(body)+8 {
				t.Fatal("the stream does not end")
			}
			c, err := s.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				var pe *provider.Error
				if !errors.As(err, &pe) {
					t.Fatalf("error %v is not a *provider.Error", err)
				}
				return
			}
			if !gjson.ValidBytes(c) || !gjson.ParseBytes(c).IsObject() {
				t.Fatalf("chunk is not a JSON object: %q", c)
			}
			if got := gjson.GetBytes(c, "object").Str; got != "chat.completion.chunk" {
				t.Fatalf("chunk object %q", got)
			}
		}
	})
}
