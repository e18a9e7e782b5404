package openai_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/provider/openai"
)

// call is one of the client's non-streamed operations.
type call func(c *openai.Client, ctx context.Context, r *provider.Request) (*provider.Response, error)

func chat(c *openai.Client, ctx context.Context, r *provider.Request) (*provider.Response, error) {
	return c.Chat(ctx, r)
}

func complete(c *openai.Client, ctx context.Context, r *provider.Request) (*provider.Response, error) {
	return c.Complete(ctx, r)
}

func embed(c *openai.Client, ctx context.Context, r *provider.Request) (*provider.Response, error) {
	return c.Embed(ctx, r)
}

// operations are the non-streamed endpoints with a fixture request and
// answer each.
var operations = []struct {
	name     string
	call     call
	path     string
	request  string
	response string
	usage    provider.Usage // in response
}{
	{"chat", chat, "/v1/chat/completions", "openai/chat_request_basic.json", "openai/chat_response_basic.json",
		provider.Usage{PromptTokens: 19, CompletionTokens: 10, TotalTokens: 29}},
	{"completions", complete, "/v1/completions", "openai/completions_request.json", "openai/completions_response.json",
		provider.Usage{PromptTokens: 5, CompletionTokens: 7, TotalTokens: 12}},
	{"embeddings", embed, "/v1/embeddings", "openai/embeddings_request_float.json", "openai/embeddings_response_float.json",
		provider.Usage{PromptTokens: 13, TotalTokens: 13}},
}

// decode unmarshals JSON into a generic value for comparison.
func decode(t testing.TB, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("invalid JSON %q: %v", b, err)
	}
	return v
}

func TestForwardBody(t *testing.T) {
	for _, op := range operations {
		body := readFixture(t, op.request)
		model := gjson.GetBytes(body, "model").Str
		tests := []struct {
			name     string
			upstream string // upstream ID; the client's is model
		}{
			{"same model", model},
			{"upstream ID differs", "meta-llama/Llama-3.3-70B-Instruct-Turbo"},
		}
		for _, tt := range tests {
			t.Run(op.name+"/"+tt.name, func(t *testing.T) {
				u := replay(t, op.response)
				c := newClient(t, u.URL, openai.Options{APIKey: "sk-test"})
				sent := bytes.Clone(body)
				r := &provider.Request{Model: model, UpstreamModel: tt.upstream, Body: sent}
				resp, err := op.call(c, testContext(t), r)
				if err != nil {
					t.Fatal(err)
				}
				got := u.last(t)
				if got.Path != op.path {
					t.Errorf("path %q, want %q", got.Path, op.path)
				}
				if tt.upstream == model && !bytes.Equal(got.Body, body) {
					t.Errorf("upstream body differs from the client's bytes:\n got %s\nwant %s", got.Body, body)
				}
				want, _ := sjson.SetBytes(body, "model", tt.upstream)
				if diff := cmp.Diff(decode(t, want), decode(t, got.Body)); diff != "" {
					t.Errorf("upstream body (-want +got):\n%s", diff)
				}
				if !bytes.Equal(sent, body) {
					t.Errorf("Request.Body was modified: %s", sent)
				}
				// The answer names the model the client asked for when
				// the host knows it by another ID, and is otherwise as sent.
				answer := readFixture(t, op.response)
				if tt.upstream != model {
					answer, _ = sjson.SetBytes(answer, "model", model)
				}
				if diff := cmp.Diff(decode(t, answer), decode(t, resp.Body)); diff != "" {
					t.Errorf("response body (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(op.usage, resp.Usage); diff != "" {
					t.Errorf("usage (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func TestRequestHeaders(t *testing.T) {
	tests := []struct {
		name string
		opt  openai.Options
		id   string
		want map[string]string // "" = absent
	}{
		{
			name: "key, extra headers and request ID",
			opt:  openai.Options{APIKey: "sk-test", Headers: map[string]string{"OpenAI-Organization": "org-1", "X-Custom": "v"}},
			id:   "req_0123",
			want: map[string]string{"Authorization": "Bearer sk-test", "Openai-Organization": "org-1", "X-Custom": "v",
				"X-Request-Id": "req_0123", "Content-Type": "application/json"},
		},
		{
			name: "no key (local host), no request ID",
			opt:  openai.Options{},
			want: map[string]string{"Authorization": "", "X-Request-Id": "", "Content-Type": "application/json"},
		},
		{
			name: "extra header overrides the default",
			opt:  openai.Options{APIKey: "sk-test", Headers: map[string]string{"Authorization": "Token other"}},
			want: map[string]string{"Authorization": "Token other"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := replay(t, "openai/chat_response_basic.json")
			c := newClient(t, u.URL, tt.opt)
			r := &provider.Request{Model: "gpt-4o-mini", UpstreamModel: "gpt-4o-mini",
				Body: readFixture(t, "openai/chat_request_basic.json"), RequestID: tt.id}
			if _, err := c.Chat(testContext(t), r); err != nil {
				t.Fatal(err)
			}
			h := u.last(t).Header
			got := map[string]string{}
			for k := range tt.want {
				got[k] = h.Get(k)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("headers (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStreamRequest(t *testing.T) {
	tests := []struct {
		name string
		body string
	}{
		{"no stream_options", `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"stream":true}`},
		{"include_usage false", `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"stream":true,"stream_options":{"include_usage":false}}`},
		{"include_usage true", `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"stream":true,"stream_options":{"include_usage":true}}`},
		{"other stream option kept", `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"stream":true,"stream_options":{"include_obfuscation":false}}`},
		{"stream_options null", `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"stream":true,"stream_options":null}`},
		{"include_usage null", `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"stream":true,"stream_options":{"include_usage":null}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := replay(t, "openai/chat_stream_text_include_usage.sse")
			c := newClient(t, u.URL, openai.Options{APIKey: "sk-test"})
			st, err := c.ChatStream(testContext(t), &provider.Request{Model: "gpt-4o-mini", UpstreamModel: "gpt-4o-mini",
				Body: []byte(tt.body), Stream: true, RequestID: "req_s1"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := drain(t, st); err != nil {
				t.Fatal(err)
			}
			got := u.last(t)
			want := decode(t, []byte(tt.body)).(map[string]any)
			opts, _ := want["stream_options"].(map[string]any)
			if opts == nil {
				opts = map[string]any{}
			}
			opts["include_usage"] = true
			want["stream_options"] = opts
			if diff := cmp.Diff(any(want), decode(t, got.Body)); diff != "" {
				t.Errorf("upstream body (-want +got):\n%s", diff)
			}
			if h := got.Header.Get("Accept"); h != "text/event-stream" {
				t.Errorf("Accept %q, want text/event-stream", h)
			}
			if h := got.Header.Get("X-Request-Id"); h != "req_s1" {
				t.Errorf("X-Request-Id %q, want req_s1", h)
			}
		})
	}
}

func TestEstimatedUsage(t *testing.T) {
	for _, op := range operations {
		t.Run(op.name, func(t *testing.T) {
			answer, _ := sjson.DeleteBytes(readFixture(t, op.response), "usage")
			u := newUpstream(t, http.StatusOK, http.Header{"Content-Type": {"application/json"}}, answer)
			c := newClient(t, u.URL, openai.Options{})
			body := readFixture(t, op.request)
			model := gjson.GetBytes(body, "model").Str
			resp, err := op.call(c, testContext(t), &provider.Request{Model: model, UpstreamModel: model, Body: body})
			if err != nil {
				t.Fatal(err)
			}
			got := resp.Usage
			if !got.Estimated || got.PromptTokens == 0 || got.TotalTokens != got.PromptTokens+got.CompletionTokens {
				t.Errorf("usage %+v, want an estimate with prompt tokens and a consistent total", got)
			}
			if op.name != "embeddings" && got.CompletionTokens == 0 {
				t.Errorf("usage %+v, want completion tokens counted from the answer", got)
			}
		})
	}
}

func TestInvalidAnswer(t *testing.T) {
	for _, op := range operations {
		t.Run(op.name, func(t *testing.T) {
			u := newUpstream(t, http.StatusOK, http.Header{"Content-Type": {"application/json"}}, []byte(`{"id":`))
			c := newClient(t, u.URL, openai.Options{})
			body := readFixture(t, op.request)
			model := gjson.GetBytes(body, "model").Str
			_, err := op.call(c, testContext(t), &provider.Request{Model: model, UpstreamModel: model, Body: body})
			if pe := asError(t, err); pe.Kind != provider.KindUnavailable {
				t.Errorf("Kind %v, want KindUnavailable (%v)", pe.Kind, pe)
			}
		})
	}
}

func TestNameAndType(t *testing.T) {
	c := openai.New(openai.Options{Name: "groq-main", Type: "groq"})
	if c.Name() != "groq-main" || c.Type() != "groq" {
		t.Errorf("Name, Type = %q, %q; want groq-main, groq", c.Name(), c.Type())
	}
}
