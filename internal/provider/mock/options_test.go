package mock_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/provider/mock"
)

func TestStopSequences(t *testing.T) {
	const user = `"messages":[{"role":"user","content":"one two three"}]`
	tests := []struct {
		name    string
		body    string
		content string
		finish  string
	}{
		{"string", `{"stop":" mock",` + user + `}`, "This is the Switchyard", "stop"},
		{"list, earliest wins", `{"stop":["two"," is"],` + user + `}`, "This", "stop"},
		{"not in the answer", `{"stop":["zebra"],` + user + `}`, "This is the Switchyard mock model answering: one two three", "stop"},
		{"max_tokens first", `{"stop":"three","max_tokens":2,` + user + `}`, "This is", "length"},
		{"stop before max_tokens", `{"stop":"the","max_tokens":5,` + user + `}`, "This is ", "stop"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mock.New("mock")
			ch := chatBody(t, p, tt.body).Get("choices.0")
			got := []string{ch.Get("message.content").Str, ch.Get("finish_reason").Str}
			if diff := cmp.Diff([]string{tt.content, tt.finish}, got); diff != "" {
				t.Errorf("[content finish] (-want +got):\n%s", diff)
			}
			if got := streamedContent(t, p, tt.body); got != tt.content {
				t.Errorf("streamed %q, want %q", got, tt.content)
			}
		})
	}
}

func TestLogprobs(t *testing.T) {
	tests := []struct {
		name string
		body string
		top  int // -1: no logprobs at all
	}{
		{"not asked", `{"messages":[{"role":"user","content":"hi"}]}`, -1},
		{"asked", `{"logprobs":true,"messages":[{"role":"user","content":"hi"}]}`, 0},
		{"top 3", `{"logprobs":true,"top_logprobs":3,"messages":[{"role":"user","content":"hi"}]}`, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mock.New("mock")
			ch := chatBody(t, p, tt.body).Get("choices.0")
			lp := ch.Get("logprobs")
			if tt.top < 0 {
				if lp.Type != gjson.Null {
					t.Errorf("logprobs %s, want null", lp.Raw)
				}
				return
			}
			var tokens []string
			for _, e := range lp.Get("content").Array() {
				tokens = append(tokens, e.Get("token").Str)
				if e.Get("logprob").Float() > 0 || len(e.Get("bytes").Array()) != len(e.Get("token").Str) || len(e.Get("top_logprobs").Array()) != tt.top {
					t.Errorf("entry %s (top %d)", e.Raw, tt.top)
				}
			}
			if got := strings.Join(tokens, ""); got != ch.Get("message.content").Str {
				t.Errorf("tokens add up to %q, content %q", got, ch.Get("message.content").Str)
			}
			var streamed []string
			for _, c := range streamChunks(t, p, tt.body) {
				for _, e := range c.Get("choices.0.logprobs.content").Array() {
					streamed = append(streamed, e.Get("token").Str)
				}
			}
			if diff := cmp.Diff(tokens, streamed); diff != "" {
				t.Errorf("streamed logprobs (-chat +stream):\n%s", diff)
			}
		})
	}
}

// IDs differ between two providers, as between two runs of the server.
func TestIDsUnique(t *testing.T) {
	ids := map[string]bool{}
	for range 3 {
		id := chatBody(t, mock.New("mock"), `{"messages":[{"role":"user","content":"hi"}]}`).Get("id").Str
		if ids[id] || !strings.HasPrefix(id, "chatcmpl-") {
			t.Errorf("id %q repeated or malformed (seen %v)", id, ids)
		}
		ids[id] = true
	}
}

func TestModelsCreated(t *testing.T) {
	for _, m := range mock.Models {
		if m.Created.IsZero() {
			t.Errorf("%s has no created date", m.ID)
		}
	}
}
