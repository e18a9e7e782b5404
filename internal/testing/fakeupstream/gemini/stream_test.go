package fakegemini

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

// events splits a stream body into its data payloads, checking framing.
func events(t *testing.T, body []byte, sep string) []gjson.Result {
	t.Helper()
	if !bytes.HasSuffix(body, []byte(sep)) {
		t.Fatalf("stream does not end with %q: %q", sep, body)
	}
	var out []gjson.Result
	for _, ev := range strings.Split(strings.TrimSuffix(string(body), sep), sep) {
		data, ok := strings.CutPrefix(ev, "data: ")
		if !ok || !gjson.Valid(data) || strings.ContainsAny(data, "\r\n") {
			t.Fatalf("bad event %q", ev)
		}
		out = append(out, gjson.Parse(data))
	}
	return out
}

func TestStream(t *testing.T) {
	for _, tt := range []struct {
		name, model, body string
		lf                bool
		want              []string // one summary per event
	}{
		{"text", "gemini-2.0-flash", `{"contents":[{"role":"user","parts":[{"text":"Hi there"}]}],"generationConfig":{"maxOutputTokens":4}}`, false,
			[]string{`"You" -`, `" said:" -`, `" Hi" -`, `" there" MAX_TOKENS`}},
		{"lf", "gemini-2.0-flash", `{"contents":[{"role":"user","parts":[{"text":"Hi"}]}],"generationConfig":{"maxOutputTokens":2}}`, true,
			[]string{`"You" -`, `" said:" MAX_TOKENS`}},
		{"gemini 3 calls", "gemini-3-flash-preview", `{"contents":[{"role":"user","parts":[{"text":"fake:parallel"}]}],` + fTool + `}`, false,
			[]string{`call f signed -`, `call f -`, `"" STOP`}},
		{"gemini 2 calls", "gemini-2.5-flash", `{"contents":[{"role":"user","parts":[{"text":"x"}]}],` + fTool + `}`, false,
			[]string{`call f STOP`}},
		{"blocked", "gemini-2.5-flash", `{"contents":[{"role":"user","parts":[{"text":"fake:blocked"}]}]}`, false,
			[]string{`blocked PROHIBITED_CONTENT`}},
		{"thoughts", "gemini-2.5-flash", `{"contents":[{"role":"user","parts":[{"text":"Hi"}]}],"generationConfig":{"maxOutputTokens":2,"thinkingConfig":{"includeThoughts":true,"thinkingBudget":1024}}}`, false,
			[]string{`thought "**Reading the request**\n" -`, `thought "The user wrote: Hi" -`, `"You" -`, `" said:" MAX_TOKENS`}},
		{"thoughts hidden", "gemini-2.5-flash", `{"contents":[{"role":"user","parts":[{"text":"Hi"}]}],"generationConfig":{"maxOutputTokens":1,"thinkingConfig":{"thinkingBudget":1024}}}`, false,
			[]string{`"You" MAX_TOKENS`}},
		{"thoughts before gemini 3 calls", "gemini-3-flash-preview", `{"contents":[{"role":"user","parts":[{"text":"x"}]}],` + fTool + `,"generationConfig":{"thinkingConfig":{"includeThoughts":true,"thinkingLevel":"LOW"}}}`, false,
			[]string{`thought "**Reading the request**\n" -`, `thought "The user wrote: x" -`, `call f signed -`, `"" STOP`}},
		{"thoughts before gemini 2 calls", "gemini-2.5-flash", `{"contents":[{"role":"user","parts":[{"text":"x"}]}],` + fTool + `,"generationConfig":{"thinkingConfig":{"includeThoughts":true}}}`, false,
			[]string{`thought "**Reading the request**\n" -`, `thought "The user wrote: x" -`, `call f STOP`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := start(t, Options{LF: tt.lf})
			r := post(t, s, tt.model+":streamGenerateContent?alt=sse", DefaultKey, tt.body)
			if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "text/event-stream") {
				t.Fatalf("status %d %s", r.status, r.body)
			}
			sep := "\r\n\r\n"
			if tt.lf {
				sep = "\n\n"
			}
			var got []string
			evs := events(t, r.body, sep)
			for _, ev := range evs {
				got = append(got, summary(ev))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			last := evs[len(evs)-1].Get("usageMetadata")
			if !last.Get("totalTokenCount").Exists() || !last.Get("promptTokenCount").Exists() {
				t.Errorf("last event usage %s", last.Raw)
			}
		})
	}
}

func summary(ev gjson.Result) string {
	if b := ev.Get("promptFeedback.blockReason"); b.Exists() {
		return "blocked " + b.Str
	}
	c := ev.Get("candidates.0")
	p := c.Get("content.parts.0")
	s := p.Get("text").Raw
	if p.Get("thought").Bool() {
		s = "thought " + s
	}
	if fc := p.Get("functionCall"); fc.Exists() {
		s = "call " + fc.Get("name").Str
		if p.Get("thoughtSignature").Exists() {
			s += " signed"
		}
	}
	f := c.Get("finishReason").Str
	if f == "" {
		f = "-"
	}
	return s + " " + f
}
