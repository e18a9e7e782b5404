package mock_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/provider/mock"
)

// drain reads a stream to io.EOF, failing the test on another error.
func drain(t *testing.T, st provider.Stream) []gjson.Result {
	t.Helper()
	defer st.Close()
	var out []gjson.Result
	for {
		b, err := st.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if !gjson.ValidBytes(b) {
			t.Fatalf("chunk %d is not JSON: %s", len(out), b)
		}
		out = append(out, gjson.ParseBytes(bytes.Clone(b)))
	}
}

// checkHead checks what every chunk of one stream shares, and the usage
// key: null in every chunk and a final choices: [] chunk with the usage
// when asked for, absent otherwise.
func checkHead(t *testing.T, chunks []gjson.Result, object string, includeUsage bool, want provider.Usage) {
	t.Helper()
	if len(chunks) < 2 {
		t.Fatalf("%d chunks", len(chunks))
	}
	first := chunks[0]
	for i, c := range chunks {
		if c.Get("id").Str != first.Get("id").Str || c.Get("created").Int() != first.Get("created").Int() ||
			c.Get("model").Str != first.Get("model").Str || c.Get("object").Str != object {
			t.Errorf("chunk %d head differs: %s", i, c.Raw)
		}
		last := i == len(chunks)-1
		u := c.Get("usage")
		switch {
		case !includeUsage && u.Exists():
			t.Errorf("chunk %d has usage without include_usage: %s", i, c.Raw)
		case includeUsage && !last && u.Type != gjson.Null:
			t.Errorf("chunk %d usage %s, want null", i, u.Raw)
		case includeUsage && last:
			got := provider.Usage{PromptTokens: int(u.Get("prompt_tokens").Int()), CompletionTokens: int(u.Get("completion_tokens").Int()),
				TotalTokens: int(u.Get("total_tokens").Int())}
			if c.Get("choices").Raw != "[]" || got != want {
				t.Errorf("last chunk %s, want choices: [] and usage %+v", c.Raw, want)
			}
		}
		if !last || !includeUsage {
			if len(c.Get("choices").Array()) == 0 {
				t.Errorf("chunk %d has no choice: %s", i, c.Raw)
			}
		}
	}
}

func TestChatStream(t *testing.T) {
	tests := []struct {
		name string
		body string
	}{
		{"text", `{"messages":[{"role":"user","content":"Say hello"}]}`},
		{"max_tokens", `{"max_tokens":3,"messages":[{"role":"user","content":"Say hello"}]}`},
		{"tools", `{"messages":[{"role":"user","content":"Weather?"}],"tools":[{"type":"function","function":` + weather + `}]}`},
		{"functions", `{"messages":[{"role":"user","content":"Weather?"}],"functions":[` + weather + `]}`},
	}
	for _, tt := range tests {
		for _, includeUsage := range []bool{false, true} {
			t.Run(tt.name+"/usage_"+strconv.FormatBool(includeUsage), func(t *testing.T) {
				p := mock.New("mock")
				want, err := p.Chat(context.Background(), request("mock-chat", tt.body))
				if err != nil {
					t.Fatal(err)
				}
				r := request("mock-chat", tt.body)
				r.Stream, r.IncludeUsage = true, includeUsage
				st, err := p.ChatStream(context.Background(), r)
				if err != nil {
					t.Fatal(err)
				}
				chunks := drain(t, st)
				checkHead(t, chunks, "chat.completion.chunk", includeUsage, want.Usage)
				if st.Usage() != want.Usage {
					t.Errorf("Usage() %+v, Chat's %+v", st.Usage(), want.Usage)
				}

				// Role first; finish last (before usage); the deltas add
				// up to Chat's message.
				if role := chunks[0].Get("choices.0.delta.role").Str; role != "assistant" {
					t.Errorf("first chunk %s, want the role", chunks[0].Raw)
				}
				body := chunks
				if includeUsage {
					body = chunks[:len(chunks)-1]
				}
				var content, name, args strings.Builder
				for i, c := range body {
					ch := c.Get("choices.0")
					if fr := ch.Get("finish_reason"); (fr.Type != gjson.Null) != (i == len(body)-1) {
						t.Errorf("chunk %d finish_reason %s", i, fr.Raw)
					}
					if i > 0 && ch.Get("delta.role").Exists() {
						t.Errorf("chunk %d repeats the role", i)
					}
					content.WriteString(ch.Get("delta.content").Str)
					name.WriteString(ch.Get("delta.tool_calls.0.function.name").Str + ch.Get("delta.function_call.name").Str)
					args.WriteString(ch.Get("delta.tool_calls.0.function.arguments").Str + ch.Get("delta.function_call.arguments").Str)
				}
				msg := gjson.GetBytes(want.Body, "choices.0.message")
				wantName := msg.Get("tool_calls.0.function.name").Str + msg.Get("function_call.name").Str
				wantArgs := msg.Get("tool_calls.0.function.arguments").Str + msg.Get("function_call.arguments").Str
				got := []string{content.String(), name.String(), args.String(), body[len(body)-1].Get("choices.0.finish_reason").Str}
				wantAll := []string{msg.Get("content").Str, wantName, wantArgs, gjson.GetBytes(want.Body, "choices.0.finish_reason").Str}
				if diff := cmp.Diff(wantAll, got); diff != "" {
					t.Errorf("stream vs Chat [content name args finish] (-chat +stream):\n%s", diff)
				}
			})
		}
	}
}

func TestChatStreamChoices(t *testing.T) {
	p := mock.New("mock")
	r := request("mock-chat", `{"n":2,"messages":[{"role":"user","content":"hi"}]}`)
	r.Stream = true
	st, err := p.ChatStream(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	finished := map[int64]bool{}
	for _, c := range drain(t, st) {
		for _, ch := range c.Get("choices").Array() {
			if ch.Get("finish_reason").Type == gjson.String {
				finished[ch.Get("index").Int()] = true
			}
		}
	}
	if diff := cmp.Diff(map[int64]bool{0: true, 1: true}, finished); diff != "" {
		t.Errorf("finished choices (-want +got):\n%s", diff)
	}
}

func TestStreamCanceled(t *testing.T) {
	p := mock.New("mock")
	ctx, cancel := context.WithCancel(context.Background())
	r := request("mock-chat", `{"messages":[{"role":"user","content":"hi"}]}`)
	r.Stream = true
	st, err := p.ChatStream(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Next(); err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := st.Next(); !errors.Is(err, context.Canceled) {
		t.Errorf("Next after cancel: %v, want context.Canceled", err)
	}
}
