package openai_test

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/provider/openai"
)

var streamFixtures = []struct {
	fixture  string
	model    string // the client's ID
	upstream string // the host's ID
	// chunkModel is the model chunks name: the host's snapshot when the
	// IDs agree, else the client's ID.
	chunkModel string
	usage      provider.Usage
	// estimated: the fixture has no usage, so the client counts it.
	estimated bool
	// errMessage is the upstream error that ends the stream, if any.
	errMessage string
}{
	{fixture: "openai/chat_stream_text_include_usage.sse", model: "gpt-4o-mini", upstream: "gpt-4o-mini", chunkModel: "gpt-4o-mini-2024-07-18",
		usage: provider.Usage{PromptTokens: 19, CompletionTokens: 10, TotalTokens: 29}},
	{fixture: "openai/chat_stream_text_no_usage.sse", model: "gpt-4o-mini", upstream: "gpt-4o-mini", chunkModel: "gpt-4o-mini-2024-07-18", estimated: true},
	{fixture: "openai/chat_stream_tool_calls_include_usage.sse", model: "gpt-4o-mini", upstream: "gpt-4o-mini", chunkModel: "gpt-4o-mini-2024-07-18",
		usage: provider.Usage{PromptTokens: 82, CompletionTokens: 46, TotalTokens: 128}},
	{fixture: "openai/chat_stream_legacy_function_call.sse", model: "gpt-4o-mini", upstream: "gpt-4o-mini", chunkModel: "gpt-4o-mini-2024-07-18", estimated: true},
	{fixture: "openai/chat_stream_n2.sse", model: "gpt-4o-mini", upstream: "gpt-4o-mini", chunkModel: "gpt-4o-mini-2024-07-18", estimated: true},
	{fixture: "openai/chat_stream_midstream_error.sse", model: "gpt-4o-mini", upstream: "gpt-4o-mini", chunkModel: "gpt-4o-mini-2024-07-18",
		errMessage: "The upstream provider is overloaded. Please retry."},
	{fixture: "llama-hosts/groq_stream_tail_x_groq_usage.sse", model: "llama-3.3-70b-instruct", upstream: "llama-3.3-70b-versatile", chunkModel: "llama-3.3-70b-instruct",
		usage: provider.Usage{PromptTokens: 18, CompletionTokens: 9, TotalTokens: 27}},
}

func TestChatStream(t *testing.T) {
	for _, tt := range streamFixtures {
		for _, includeUsage := range []bool{false, true} {
			name := strings.TrimSuffix(tt.fixture[strings.Index(tt.fixture, "/")+1:], ".sse") + "_usage_" + strconv.FormatBool(includeUsage)
			t.Run(name, func(t *testing.T) {
				u := replay(t, tt.fixture)
				c := newClient(t, u.URL, openai.Options{APIKey: "sk-test"})
				body := `{"model":"` + tt.model + `","messages":[{"role":"user","content":"Say hello."}],"stream":true}`
				st, err := c.ChatStream(testContext(t), &provider.Request{Model: tt.model, UpstreamModel: tt.upstream,
					Body: []byte(body), Stream: true, IncludeUsage: includeUsage})
				if err != nil {
					t.Fatal(err)
				}
				chunks, err := drain(t, st)
				golden(t, "stream_"+name, append(bytes.Join(chunks, []byte("\n")), '\n'))

				if got := gjson.GetBytes(u.last(t).Body, "stream_options.include_usage"); got.Type != gjson.True {
					t.Errorf("upstream stream_options.include_usage = %s, want true", got.Raw)
				}
				checkChunks(t, chunks, tt.chunkModel, includeUsage && tt.errMessage == "")
				if tt.errMessage != "" {
					pe := asError(t, err)
					if pe.Message != tt.errMessage || pe.Kind != provider.KindUnavailable {
						t.Errorf("error %+v, want KindUnavailable with message %q", pe, tt.errMessage)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				got := st.Usage()
				if tt.estimated {
					if !got.Estimated || got.PromptTokens == 0 || got.CompletionTokens == 0 || got.TotalTokens != got.PromptTokens+got.CompletionTokens {
						t.Errorf("Usage() = %+v, want a consistent estimate", got)
					}
				} else if diff := cmp.Diff(tt.usage, got); diff != "" {
					t.Errorf("Usage() (-want +got):\n%s", diff)
				}
				if includeUsage {
					last := chunks[len(chunks)-1]
					want := provider.Usage{PromptTokens: got.PromptTokens, CompletionTokens: got.CompletionTokens, TotalTokens: got.TotalTokens}
					if diff := cmp.Diff(want, usageOf(last)); diff != "" {
						t.Errorf("usage chunk disagrees with Usage() (-want +got):\n%s", diff)
					}
				}
			})
		}
	}
}

// checkChunks checks what a client may rely on in every stream: valid
// JSON, its own model ID, no host extensions, and the usage chunk exactly
// when asked for.
func checkChunks(t *testing.T, chunks [][]byte, model string, wantUsageChunk bool) {
	t.Helper()
	usageChunks := 0
	for i, ch := range chunks {
		if !gjson.ValidBytes(ch) {
			t.Fatalf("chunk %d is not JSON: %s", i, ch)
		}
		r := gjson.ParseBytes(ch)
		if r.Get("x_groq").Exists() {
			t.Errorf("chunk %d forwards x_groq: %s", i, ch)
		}
		if got := r.Get("model").Str; got != model {
			t.Errorf("chunk %d model %q, want %q", i, got, model)
		}
		if !wantUsageChunk && r.Get("usage").Exists() {
			t.Errorf("chunk %d has a usage key the client did not ask for: %s", i, ch)
		}
		if choices := r.Get("choices"); choices.IsArray() && len(choices.Array()) == 0 {
			usageChunks++
			if i != len(chunks)-1 {
				t.Errorf("usage chunk %d is not the last of %d", i, len(chunks))
			}
			if !r.Get("usage").IsObject() {
				t.Errorf("usage chunk without usage: %s", ch)
			}
		}
	}
	if want := map[bool]int{false: 0, true: 1}[wantUsageChunk]; usageChunks != want {
		t.Errorf("%d usage chunks (choices: []), want %d", usageChunks, want)
	}
}

func usageOf(chunk []byte) provider.Usage {
	u := gjson.GetBytes(chunk, "usage")
	return provider.Usage{PromptTokens: int(u.Get("prompt_tokens").Int()),
		CompletionTokens: int(u.Get("completion_tokens").Int()), TotalTokens: int(u.Get("total_tokens").Int())}
}

func TestCompleteStream(t *testing.T) {
	for _, includeUsage := range []bool{false, true} {
		t.Run("usage_"+strconv.FormatBool(includeUsage), func(t *testing.T) {
			u := newUpstream(t, http.StatusOK, http.Header{"Content-Type": {"text/event-stream"}}, []byte(
				`data: {"id":"cmpl-1","object":"text_completion","created":1690759702,"model":"gpt-3.5-turbo-instruct","choices":[{"text":"This is","index":0,"logprobs":null,"finish_reason":null}]}`+"\n\n"+
					`data: {"id":"cmpl-1","object":"text_completion","created":1690759702,"model":"gpt-3.5-turbo-instruct","choices":[{"text":" a test","index":0,"logprobs":null,"finish_reason":"length"}]}`+"\n\n"+
					"data: [DONE]\n\n"))
			c := newClient(t, u.URL, openai.Options{})
			st, err := c.CompleteStream(testContext(t), &provider.Request{Model: "gpt-3.5-turbo-instruct", UpstreamModel: "gpt-3.5-turbo-instruct",
				Body: []byte(`{"model":"gpt-3.5-turbo-instruct","prompt":"Say this is a test","stream":true}`), Stream: true, IncludeUsage: includeUsage})
			if err != nil {
				t.Fatal(err)
			}
			chunks, err := drain(t, st)
			if err != nil {
				t.Fatal(err)
			}
			if got := u.last(t); got.Path != "/v1/completions" || !gjson.GetBytes(got.Body, "stream_options.include_usage").Bool() {
				t.Errorf("upstream got %s %s, want /v1/completions asking for usage", got.Path, got.Body)
			}
			checkChunks(t, chunks, "gpt-3.5-turbo-instruct", includeUsage)
			if includeUsage && gjson.GetBytes(chunks[len(chunks)-1], "object").Str != "text_completion" {
				t.Errorf("usage chunk %s, want object text_completion", chunks[len(chunks)-1])
			}
			if u := st.Usage(); !u.Estimated || u.CompletionTokens == 0 {
				t.Errorf("Usage() = %+v, want an estimate counting the answer", u)
			}
		})
	}
}

// A stream read to its end gives its connection back to the pool: a busy
// gateway must not open a connection per request.
func TestStreamReusesConnection(t *testing.T) {
	var conns atomic.Int64
	body := readFixture(t, "openai/chat_stream_text_include_usage.sse")
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		for ev := range bytes.SplitAfterSeq(body, []byte("\n\n")) {
			w.Write(ev)
			rc.Flush()
		}
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	c := newClient(t, srv.URL, openai.Options{})
	for _, includeUsage := range []bool{false, true} {
		for range 10 {
			st, err := c.ChatStream(testContext(t), &provider.Request{Model: "gpt-4o-mini", UpstreamModel: "gpt-4o-mini",
				Body: []byte(`{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"stream":true}`), Stream: true, IncludeUsage: includeUsage})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := drain(t, st); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("20 sequential streams opened %d connections, want 1", n)
	}
}

// BenchmarkStreamEdit measures the client's per-chunk cost: one b.N
// iteration is one Next over a 200-chunk upstream stream (the HTTP request
// is amortized over the 200 chunks).
func BenchmarkStreamEdit(b *testing.B) {
	for _, includeUsage := range []bool{true, false} {
		b.Run("include_usage_"+strconv.FormatBool(includeUsage), func(b *testing.B) {
			body := benchStream(200)
			// One write per stream, so the server's syscalls do not drown
			// the client's cost.
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "text/event-stream")
				w.Write(body)
			}))
			b.Cleanup(srv.Close)
			c := newClient(b, srv.URL, openai.Options{})
			r := &provider.Request{Model: "gpt-4o-mini", UpstreamModel: "gpt-4o-mini", Stream: true, IncludeUsage: includeUsage,
				Body: []byte(`{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"stream":true}`)}
			ctx := testContext(b)
			var st provider.Stream
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if st == nil {
					var err error
					if st, err = c.ChatStream(ctx, r); err != nil {
						b.Fatal(err)
					}
				}
				_, err := st.Next()
				if errors.Is(err, io.EOF) {
					st.Close()
					st = nil
					continue
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			if st != nil {
				st.Close()
			}
		})
	}
}

// benchStream returns an OpenAI stream asking for usage: a role chunk,
// content chunks, a finish chunk and a usage chunk, n chunks in all.
func benchStream(n int) []byte {
	const head = `data: {"id":"chatcmpl-C3kR2bW7p8yQe1fM0aZt9LxVnHs4D","object":"chat.completion.chunk","created":1754929200,"model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_34a54ae93c","choices":`
	var b bytes.Buffer
	b.WriteString(head + `[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null}` + "\n\n")
	for i := range n - 3 {
		b.WriteString(head + `[{"index":0,"delta":{"content":" token` + strconv.Itoa(i) + `"},"logprobs":null,"finish_reason":null}],"usage":null}` + "\n\n")
	}
	b.WriteString(head + `[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":null}` + "\n\n")
	b.WriteString(head + `[],"usage":{"prompt_tokens":19,"completion_tokens":197,"total_tokens":216}}` + "\n\n")
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}

// Hosts that are not OpenAI stream a little differently (wire-formats.md
// section 4); the client still gives every client the OpenAI shape.
func TestStreamHostQuirks(t *testing.T) {
	const (
		head   = `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"meta-llama/Llama-3.3-70B-Instruct-Turbo","choices":`
		role   = head + `[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}` + "\n\n"
		text   = head + `[{"index":0,"delta":{"content":"Hi there"},"finish_reason":null}]}` + "\n\n"
		finish = head + `[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n"
		usage  = `"usage":{"prompt_tokens":7,"completion_tokens":2,"total_tokens":9}`
		done   = "data: [DONE]\n\n"
	)
	hostUsage := provider.Usage{PromptTokens: 7, CompletionTokens: 2, TotalTokens: 9}
	tests := []struct {
		name  string
		body  string
		usage provider.Usage // zero: estimated
	}{
		{"usage on the finish chunk (Together)", role + text + head + `[{"index":0,"delta":{},"finish_reason":"stop"}],` + usage + "}\n\n" + done, hostUsage},
		{"spaced JSON", strings.ReplaceAll(role+text+finish, `,"choices"`, `, "usage": null, "choices"`) +
			`data: {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": [ ], ` + usage + " }\n\n" + done, hostUsage},
		{"keep-alive comments and CRLF", ": keep-alive\r\n\r\n" + strings.ReplaceAll(role+text+finish, "\n", "\r\n") + done, provider.Usage{}},
		{"no [DONE]", role + text + finish, provider.Usage{}},
		// Azure OpenAI opens with a choices: [] chunk carrying only
		// prompt_filter_results.
		{"empty choices chunk first", head + `[],"prompt_filter_results":[{"prompt_index":0}]}` + "\n\n" + role + text + finish + done, provider.Usage{}},
	}
	for _, tt := range tests {
		for _, includeUsage := range []bool{false, true} {
			t.Run(tt.name+"/usage_"+strconv.FormatBool(includeUsage), func(t *testing.T) {
				u := newUpstream(t, http.StatusOK, http.Header{"Content-Type": {"text/event-stream"}}, []byte(tt.body))
				c := newClient(t, u.URL, openai.Options{})
				st, err := c.ChatStream(testContext(t), &provider.Request{Model: "llama-3.3-70b-instruct", UpstreamModel: "meta-llama/Llama-3.3-70B-Instruct-Turbo",
					Body: []byte(`{"model":"llama-3.3-70b-instruct","messages":[{"role":"user","content":"hi"}],"stream":true}`), Stream: true, IncludeUsage: includeUsage})
				if err != nil {
					t.Fatal(err)
				}
				chunks, err := drain(t, st)
				if err != nil {
					t.Fatal(err)
				}
				if len(chunks) < 3 {
					t.Fatalf("%d chunks, want at least role, text and finish:\n%s", len(chunks), bytes.Join(chunks, []byte("\n")))
				}
				checkChunks(t, chunks, "llama-3.3-70b-instruct", includeUsage)
				got := st.Usage()
				if tt.usage == (provider.Usage{}) {
					if !got.Estimated || got.CompletionTokens == 0 {
						t.Errorf("Usage() = %+v, want an estimate", got)
					}
				} else if diff := cmp.Diff(tt.usage, got); diff != "" {
					t.Errorf("Usage() (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestStreamUsageChunkHead checks the usage chunk the gateway makes when
// the host sent none: it repeats the id, object, created and model of the
// last chunk that went out, even when chunks the client does not get came
// after it (the reader reuses its buffer from event to event).
func TestStreamUsageChunkHead(t *testing.T) {
	const (
		head   = `data: {"id":"chatcmpl-head","object":"chat.completion.chunk","created":42,"model":"gpt-4o-mini-2024-07-18","choices":`
		text   = head + `[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}` + "\n\n"
		finish = head + `[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n"
		done   = "data: [DONE]\n\n"
	)
	tests := []struct {
		name, tail string
	}{
		{"done after the finish", done},
		{"a filter chunk after the finish", `data: {"choices":[],"prompt_filter_results":[{"prompt_index":0,"content_filter_results":{}}],"id":"zzzzzzzzzzzzzzzzzzzzzz"}` + "\n\n" + done},
		{"no [DONE]", `data: {"object":"other","choices":[],"prompt_filter_results":[{"prompt_index":0}],"model":"xxxxxxxxxxxxxxxxxxxxxx"}` + "\n\n"},
	}
	want := map[string]any{"id": "chatcmpl-head", "object": "chat.completion.chunk", "created": float64(42), "model": "gpt-4o-mini-2024-07-18"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := newUpstream(t, http.StatusOK, http.Header{"Content-Type": {"text/event-stream"}}, []byte(text+finish+tt.tail))
			c := newClient(t, u.URL, openai.Options{})
			st, err := c.ChatStream(testContext(t), &provider.Request{Model: "gpt-4o-mini", UpstreamModel: "gpt-4o-mini",
				Body: []byte(`{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"stream":true}`), Stream: true, IncludeUsage: true})
			if err != nil {
				t.Fatal(err)
			}
			chunks, err := drain(t, st)
			if err != nil {
				t.Fatal(err)
			}
			last := gjson.ParseBytes(chunks[len(chunks)-1])
			got := map[string]any{}
			for k := range want {
				got[k] = last.Get(k).Value()
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("usage chunk head (-want +got):\n%s\nchunk: %s", diff, last.Raw)
			}
		})
	}
}

// TestStreamEstimateCountsChoiceText: without usage from the host, the
// answer's text is counted from every chunk, wherever the choice puts its
// index: a legacy completion's text counts as the same pieces in a chat
// delta's content do, and not at all would be an estimate of nothing.
func TestStreamEstimateCountsChoiceText(t *testing.T) {
	pieces := []string{"The quick", " brown fox", " jumps over", " the lazy dog."}
	var legacy, chat strings.Builder
	for i, p := range pieces {
		choice := `{"index":0,"text":"` + p + `","logprobs":null,"finish_reason":null}`
		delta := `{"index":0,"delta":{"content":"` + p + `"},"finish_reason":null}`
		if i%2 == 1 { // the index after the text
			choice = `{"text":"` + p + `","index":0,"logprobs":null,"finish_reason":null}`
			delta = `{"delta":{"content":"` + p + `"},"index":0,"finish_reason":null}`
		}
		legacy.WriteString(`data: {"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[` + choice + "]}\n\n")
		chat.WriteString(`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[` + delta + "]}\n\n")
	}
	usage := func(body string, complete bool) provider.Usage {
		u := newUpstream(t, http.StatusOK, http.Header{"Content-Type": {"text/event-stream"}}, []byte(body+"data: [DONE]\n\n"))
		c := newClient(t, u.URL, openai.Options{})
		r := &provider.Request{Model: "m", UpstreamModel: "m", Stream: true,
			Body: []byte(`{"model":"m","messages":[{"role":"user","content":"Go on."}],"stream":true}`)}
		var st provider.Stream
		var err error
		if complete {
			r.Body = []byte(`{"model":"m","prompt":"Go on.","stream":true}`)
			st, err = c.CompleteStream(testContext(t), r)
		} else {
			st, err = c.ChatStream(testContext(t), r)
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, err := drain(t, st); err != nil {
			t.Fatal(err)
		}
		return st.Usage()
	}
	got, want := usage(legacy.String(), true), usage(chat.String(), false)
	if !got.Estimated || got.CompletionTokens == 0 || got.CompletionTokens != want.CompletionTokens {
		t.Errorf("legacy completion counted %+v, the same text in chat deltas %+v; want the same estimate, not zero", got, want)
	}
}
