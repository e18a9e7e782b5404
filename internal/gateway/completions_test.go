package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/gateway"
	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/route"
)

// mockAnswer is mock-chat's answer to a prompt of a few words.
func mockAnswer(prompt string) string {
	return "This is the Switchyard mock model answering: " + prompt
}

// completionCall routes a legacy completion of model with body.
func completionCall(t *testing.T, g *gateway.Gateway, model, body string) (*gateway.Call, route.Target) {
	t.Helper()
	c := &gateway.Call{Endpoint: provider.EndpointCompletion, Model: model, Body: []byte(body), RequestID: "req-c",
		Stream: gjson.Get(body, "stream").Bool(), IncludeUsage: gjson.Get(body, "stream_options.include_usage").Bool()}
	tg, err := g.Route(c)
	if err != nil {
		t.Fatal(err)
	}
	return c, tg
}

// textChoice is what a test compares of a text_completion choice.
type textChoice struct {
	Index  int64
	Text   string
	Finish string
}

func textChoices(b []byte) []textChoice {
	var out []textChoice
	for _, c := range gjson.GetBytes(b, "choices").Array() {
		out = append(out, textChoice{c.Get("index").Int(), c.Get("text").Str, c.Get("finish_reason").Str})
	}
	return out
}

func TestCompleteViaChat(t *testing.T) {
	rec := newRecorder()
	g := newGateway(t, rec)
	body := `{"model":"mock-chat","prompt":["one two","three"],"n":2,"temperature":0.5,"stop":"\n","user":"u1","seed":7}`
	c, tg := completionCall(t, g, "mock-chat", body)
	resp, err := g.Complete(context.Background(), tg, c, []string{"one two", "three"})
	if err != nil {
		t.Fatal(err)
	}
	want := []textChoice{{0, mockAnswer("one two"), "stop"}, {1, mockAnswer("one two"), "stop"},
		{2, mockAnswer("three"), "stop"}, {3, mockAnswer("three"), "stop"}}
	if diff := cmp.Diff(want, textChoices(resp.Body)); diff != "" {
		t.Errorf("choices (-want +got):\n%s", diff)
	}
	r := gjson.ParseBytes(resp.Body)
	if r.Get("object").Str != "text_completion" || r.Get("model").Str != "mock-chat" || !strings.HasPrefix(r.Get("id").Str, "cmpl-") ||
		strings.Contains(r.Get("id").Str, "chatcmpl") {
		t.Errorf("head of %s", resp.Body)
	}
	if total := rec.total(); resp.Usage != total || total.TotalTokens == 0 {
		t.Errorf("usage %+v, want the sum of the chat answers %+v", resp.Usage, total)
	}
	if got := int(r.Get("usage.total_tokens").Int()); got != resp.Usage.TotalTokens {
		t.Errorf("usage in the body %s, Usage %+v", r.Get("usage").Raw, resp.Usage)
	}

	// One chat request per prompt, with the sampling fields and the
	// default max_tokens.
	var got []map[string]any
	for _, r := range rec.requests() {
		if r.Endpoint != provider.EndpointChat || r.Model != "mock-chat" || r.UpstreamModel != "mock-chat" || r.RequestID != "req-c" ||
			r.MaxOutputTokens != 4096 || r.Stream {
			t.Errorf("request %+v", r)
		}
		var m map[string]any
		if err := json.Unmarshal(r.Body, &m); err != nil {
			t.Fatal(err)
		}
		got = append(got, m)
	}
	slices.SortFunc(got, func(a, b map[string]any) int {
		return strings.Compare(gjsonOf(a, "messages.0.content"), gjsonOf(b, "messages.0.content"))
	})
	wantReqs := []map[string]any{}
	for _, p := range []string{"one two", "three"} {
		wantReqs = append(wantReqs, map[string]any{"model": "mock-chat", "max_tokens": 16.0, "temperature": 0.5, "n": 2.0, "stop": "\n",
			"user": "u1", "seed": 7.0, "messages": []any{map[string]any{"role": "user", "content": p}}})
	}
	if diff := cmp.Diff(wantReqs, got); diff != "" {
		t.Errorf("chat requests (-want +got):\n%s", diff)
	}
}

func gjsonOf(m map[string]any, path string) string {
	b, _ := json.Marshal(m)
	return gjson.GetBytes(b, path).Str
}

func TestCompleteFailure(t *testing.T) {
	g := newGateway(t, fan{})
	c, tg := completionCall(t, g, "fan-chat", `{"model":"fan-chat","prompt":["ok","fail"]}`)
	_, err := g.Complete(context.Background(), tg, c, []string{"ok", "fail"})
	var pe *provider.Error
	if !errors.As(err, &pe) || pe.Kind != provider.KindBadRequest || pe.Message != "refused" {
		t.Errorf("error %v, want the provider's refusal", err)
	}
}

func TestCompleteRefusals(t *testing.T) {
	tests := []struct {
		body  string // fields added to the request
		param string // "" = accepted
	}{
		{`"echo":true`, "echo"},
		{`"suffix":"end"`, "suffix"},
		{`"best_of":2`, "best_of"},
		{`"logprobs":1`, "logprobs"},
		{`"logprobs":0`, "logprobs"},
		{`"echo":false`, ""},
		{`"suffix":""`, ""},
		{`"suffix":null`, ""},
		{`"best_of":1`, ""},
		{`"logprobs":null`, ""},
	}
	for _, tt := range tests {
		for _, stream := range []bool{false, true} {
			t.Run(tt.body+"/stream_"+strconv.FormatBool(stream), func(t *testing.T) {
				rec := newRecorder()
				g := newGateway(t, rec)
				body := `{"model":"mock-chat","prompt":"hi","stream":` + strconv.FormatBool(stream) + `,` + tt.body + `}`
				c, tg := completionCall(t, g, "mock-chat", body)
				var err error
				if stream {
					var st provider.Stream
					if st, err = g.CompleteStream(context.Background(), tg, c, []string{"hi"}); err == nil {
						_, err = st.Next()
						st.Close()
					}
				} else {
					_, err = g.Complete(context.Background(), tg, c, []string{"hi"})
				}
				var unsupported *gateway.ErrUnsupported
				switch {
				case tt.param == "" && err != nil:
					t.Errorf("refused: %v", err)
				case tt.param != "" && (!errors.As(err, &unsupported) || unsupported.Param != tt.param):
					t.Errorf("error %v, want ErrUnsupported for %s", err, tt.param)
				case tt.param != "" && !strings.Contains(unsupported.Message, "mock-chat"):
					t.Errorf("message %q does not name the model", unsupported.Message)
				case tt.param != "" && len(rec.requests()) != 0:
					t.Errorf("refused request still sent: %+v", rec.requests())
				}

				// A model with a native /completions endpoint gets it all.
				rec = newRecorder()
				g = newGateway(t, rec)
				c, tg = completionCall(t, g, "mock-instruct", strings.Replace(body, "mock-chat", "mock-instruct", 1))
				if _, err := g.Complete(context.Background(), tg, c, []string{"hi"}); err != nil {
					t.Errorf("native completion refused: %v", err)
				}
			})
		}
	}
}

func TestCompleteMaxTokens(t *testing.T) {
	tests := []struct {
		field string // max_tokens as sent; "" = absent
		want  string
	}{
		{"", "16"},
		{`"max_tokens":null,`, "16"},
		{`"max_tokens":5,`, "5"},
		{`"max_tokens":300,`, "300"},
	}
	for _, tt := range tests {
		for _, model := range []string{"mock-chat", "mock-instruct"} {
			for _, stream := range []bool{false, true} {
				t.Run(model+"/"+tt.field+"/stream_"+strconv.FormatBool(stream), func(t *testing.T) {
					rec := newRecorder()
					g := newGateway(t, rec)
					body := []byte(`{"model":"` + model + `",` + tt.field + `"prompt":"hi","stream":` + strconv.FormatBool(stream) + `}`)
					sent := bytes.Clone(body)
					c, tg := completionCall(t, g, model, string(body))
					c.Body = sent
					if stream {
						st, err := g.CompleteStream(context.Background(), tg, c, []string{"hi"})
						if err != nil {
							t.Fatal(err)
						}
						for _, err := st.Next(); err == nil; _, err = st.Next() {
						}
						st.Close()
					} else if _, err := g.Complete(context.Background(), tg, c, []string{"hi"}); err != nil {
						t.Fatal(err)
					}
					reqs := rec.requests()
					if len(reqs) != 1 {
						t.Fatalf("%d requests, want 1", len(reqs))
					}
					if got := gjson.GetBytes(reqs[0].Body, "max_tokens").Raw; got != tt.want {
						t.Errorf("forwarded max_tokens %s, want %s", got, tt.want)
					}
					if !bytes.Equal(sent, body) {
						t.Errorf("the client's body was modified: %s", sent)
					}
				})
			}
		}
	}
}

// Token-ID prompts reach a chat model as text, decoded with the model's
// tokenizer (cl100k_base for mock-chat).
func TestCompleteTokenPrompts(t *testing.T) {
	tests := []struct {
		prompt string
		want   []string
	}{
		{`[9906,1917]`, []string{"Hello world"}},
		{`[[9906,1917],[15571,3814,11,18266]]`, []string{"Hello world", "Good night, moon"}},
		{`[[15571,3814,11,18266],[9906,1917],[9906]]`, []string{"Good night, moon", "Hello world", "Hello"}},
	}
	for _, tt := range tests {
		t.Run(tt.prompt, func(t *testing.T) {
			rec := newRecorder()
			g := newGateway(t, rec)
			c, tg := completionCall(t, g, "mock-chat", `{"model":"mock-chat","prompt":`+tt.prompt+`}`)
			resp, err := g.Complete(context.Background(), tg, c, nil)
			if err != nil {
				t.Fatal(err)
			}
			var want []textChoice
			for i, p := range tt.want {
				want = append(want, textChoice{int64(i), mockAnswer(p), "stop"})
			}
			if diff := cmp.Diff(want, textChoices(resp.Body)); diff != "" {
				t.Errorf("choices (-want +got):\n%s", diff)
			}
		})
	}
}

// streamChunks reads a completion stream to its end.
func streamChunks(t *testing.T, st provider.Stream) []gjson.Result {
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
