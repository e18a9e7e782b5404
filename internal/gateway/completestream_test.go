package gateway_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/provider"
)

// streamed is what a completion stream said, per choice index.
type streamed struct {
	Text   map[int64]string
	Finish map[int64]string
}

// collect checks the chunks' shape and the usage key, and gathers the
// text and finish reason of each choice.
func collect(t *testing.T, chunks []gjson.Result, model string, includeUsage bool, usage provider.Usage) streamed {
	t.Helper()
	got := streamed{Text: map[int64]string{}, Finish: map[int64]string{}}
	if len(chunks) == 0 {
		t.Fatal("no chunks")
	}
	id := chunks[0].Get("id").Str
	if !strings.HasPrefix(id, "cmpl-") || strings.Contains(id, "chatcmpl") {
		t.Errorf("id %q, want cmpl-…", id)
	}
	for i, c := range chunks {
		if c.Get("object").Str != "text_completion" || c.Get("model").Str != model || c.Get("id").Str != id {
			t.Errorf("chunk %d head: %s", i, c.Raw)
		}
		last := i == len(chunks)-1
		u := c.Get("usage")
		switch {
		case !includeUsage && u.Exists():
			t.Errorf("chunk %d has usage without include_usage: %s", i, c.Raw)
		case includeUsage && !last && u.Type != gjson.Null:
			t.Errorf("chunk %d usage %s, want null", i, u.Raw)
		case includeUsage && last:
			gotUsage := provider.Usage{PromptTokens: int(u.Get("prompt_tokens").Int()),
				CompletionTokens: int(u.Get("completion_tokens").Int()), TotalTokens: int(u.Get("total_tokens").Int())}
			if c.Get("choices").Raw != "[]" || gotUsage != usage {
				t.Errorf("last chunk %s, want choices: [] and usage %+v", c.Raw, usage)
			}
			continue
		}
		choices := c.Get("choices").Array()
		if len(choices) == 0 {
			t.Errorf("chunk %d has no choice: %s", i, c.Raw)
		}
		for _, ch := range choices {
			idx := ch.Get("index").Int()
			if got.Finish[idx] != "" {
				t.Errorf("choice %d continues after its finish: %s", idx, c.Raw)
			}
			if !ch.Get("logprobs").Exists() || ch.Get("delta").Exists() {
				t.Errorf("chunk %d choice is not a text_completion choice: %s", i, ch.Raw)
			}
			got.Text[idx] += ch.Get("text").Str
			got.Finish[idx] = ch.Get("finish_reason").Str
		}
	}
	return got
}

func TestCompleteStreamViaChat(t *testing.T) {
	for _, includeUsage := range []bool{false, true} {
		t.Run("usage_"+strconv.FormatBool(includeUsage), func(t *testing.T) {
			rec := newRecorder()
			g := newGateway(t, rec)
			body := `{"model":"mock-chat","prompt":["one two","three"],"stream":true}`
			if includeUsage {
				body = `{"model":"mock-chat","prompt":["one two","three"],"stream":true,"stream_options":{"include_usage":true}}`
			}
			c, tg := completionCall(t, g, "mock-chat", body)
			st, err := g.CompleteStream(context.Background(), tg, c, []string{"one two", "three"})
			if err != nil {
				t.Fatal(err)
			}
			chunks := streamChunks(t, st)
			total := rec.total()
			got := collect(t, chunks, "mock-chat", includeUsage, total)
			want := streamed{
				Text:   map[int64]string{0: mockAnswer("one two"), 1: mockAnswer("three")},
				Finish: map[int64]string{0: "stop", 1: "stop"},
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("stream (-want +got):\n%s", diff)
			}
			if st.Usage() != total || total.TotalTokens == 0 {
				t.Errorf("Usage() %+v, want the sum of the chat streams %+v", st.Usage(), total)
			}
			for _, r := range rec.requests() {
				if r.Endpoint != provider.EndpointChat || !r.Stream || !gjson.GetBytes(r.Body, "stream").Bool() ||
					gjson.GetBytes(r.Body, "max_tokens").Int() != 16 {
					t.Errorf("chat request %+v %s", r, r.Body)
				}
			}
		})
	}
}

// With n choices per prompt, prompt i's choice j is index i*n+j.
func TestCompleteStreamChoices(t *testing.T) {
	g := newGateway(t, fan{})
	c, tg := completionCall(t, g, "fan-chat", `{"model":"fan-chat","prompt":["one","two"],"n":2,"stream":true,"stream_options":{"include_usage":true}}`)
	st, err := g.CompleteStream(context.Background(), tg, c, []string{"one", "two"})
	if err != nil {
		t.Fatal(err)
	}
	total := provider.Usage{PromptTokens: 2 * fanUsage.PromptTokens, CompletionTokens: 2 * fanUsage.CompletionTokens, TotalTokens: 2 * fanUsage.TotalTokens}
	got := collect(t, streamChunks(t, st), "fan-chat", true, total)
	want := streamed{
		Text:   map[int64]string{0: "one#0", 1: "one#1", 2: "two#0", 3: "two#1"},
		Finish: map[int64]string{0: "stop", 1: "stop", 2: "stop", 3: "stop"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stream (-want +got):\n%s", diff)
	}
}

// Complete indexes fan's n choices the same way.
func TestCompleteChoices(t *testing.T) {
	g := newGateway(t, fan{})
	c, tg := completionCall(t, g, "fan-chat", `{"model":"fan-chat","prompt":["one","two","three"],"n":2}`)
	resp, err := g.Complete(context.Background(), tg, c, []string{"one", "two", "three"})
	if err != nil {
		t.Fatal(err)
	}
	var want []textChoice
	for i, p := range []string{"one", "two", "three"} {
		for j := range 2 {
			want = append(want, textChoice{int64(i*2 + j), p + "#" + strconv.Itoa(j), "stop"})
		}
	}
	if diff := cmp.Diff(want, textChoices(resp.Body)); diff != "" {
		t.Errorf("choices (-want +got):\n%s", diff)
	}
	if want := (provider.Usage{PromptTokens: 9, CompletionTokens: 6, TotalTokens: 15}); resp.Usage != want {
		t.Errorf("usage %+v, want %+v", resp.Usage, want)
	}
}

// A prompt whose chat stream cannot open ends the completion stream with
// the provider's error, after the earlier prompts' chunks.
func TestCompleteStreamFailure(t *testing.T) {
	g := newGateway(t, fan{})
	c, tg := completionCall(t, g, "fan-chat", `{"model":"fan-chat","prompt":["ok","fail"],"stream":true}`)
	st, err := g.CompleteStream(context.Background(), tg, c, []string{"ok", "fail"})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var texts []string
	for {
		b, err := st.Next()
		if err != nil {
			var pe *provider.Error
			if !errors.As(err, &pe) || pe.Message != "refused" {
				t.Errorf("error %v, want the provider's refusal", err)
			}
			break
		}
		texts = append(texts, gjson.GetBytes(b, "choices.0.text").Str)
	}
	if got := strings.Join(texts, ""); got != "ok#0" {
		t.Errorf("text before the failure %q, want ok#0", got)
	}
}

// A native completion model streams the provider's own chunks.
func TestCompleteStreamNative(t *testing.T) {
	for _, includeUsage := range []bool{false, true} {
		t.Run("usage_"+strconv.FormatBool(includeUsage), func(t *testing.T) {
			rec := newRecorder()
			g := newGateway(t, rec)
			c, tg := completionCall(t, g, "mock-instruct", `{"model":"mock-instruct","prompt":"one two","stream":true}`)
			c.IncludeUsage = includeUsage
			st, err := g.CompleteStream(context.Background(), tg, c, []string{"one two"})
			if err != nil {
				t.Fatal(err)
			}
			chunks := streamChunks(t, st)
			got := collect(t, chunks, "mock-instruct", includeUsage, rec.total())
			if want := " " + mockAnswer("one two"); got.Text[0] != want {
				t.Errorf("text %q, want %q", got.Text[0], want)
			}
			reqs := rec.requests()
			if len(reqs) != 1 || reqs[0].Endpoint != provider.EndpointCompletion || reqs[0].IncludeUsage != includeUsage {
				t.Errorf("requests %+v, want one native completion", reqs)
			}
		})
	}
}
