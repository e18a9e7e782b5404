package anthropic

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/switchyard-gw/switchyard/internal/provider"
	fakeanthropic "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/anthropic"
)

const fakeKey = "test-upstream-key"

// newFake starts a strict fake and a client of it.
func newFake(t *testing.T, opt fakeanthropic.Options) (*fakeanthropic.Server, *Client) {
	t.Helper()
	srv := fakeanthropic.Start(opt)
	t.Cleanup(srv.Close)
	c := New(Options{Name: "anthropic", BaseURL: srv.URL, APIKey: fakeKey, Timeout: 10 * time.Second})
	c.now = func() time.Time { return time.Unix(goldenCreated, 0) }
	return srv, c
}

func chatRequest(body string, includeUsage bool) *provider.Request {
	return &provider.Request{Endpoint: provider.EndpointChat, Model: "client-model", UpstreamModel: "claude-sonnet-4-5",
		Body: []byte(body), IncludeUsage: includeUsage, RequestID: "req-test", MaxOutputTokens: 64000}
}

// answer is a chat answer reduced to what both shapes carry.
type answer struct {
	Content   any // string or nil
	Calls     []string
	Function  string
	Finish    string
	Prompt    int
	Cached    int
	Completed int
}

// answerOfBody reads a chat.completion.
func answerOfBody(t *testing.T, b []byte) answer {
	t.Helper()
	m := gjson.GetBytes(b, "choices.0.message")
	a := answer{Content: m.Get("content").Value(), Finish: gjson.GetBytes(b, "choices.0.finish_reason").Str,
		Prompt: int(gjson.GetBytes(b, "usage.prompt_tokens").Int()), Cached: int(gjson.GetBytes(b, "usage.prompt_tokens_details.cached_tokens").Int()),
		Completed: int(gjson.GetBytes(b, "usage.completion_tokens").Int())}
	for _, tc := range m.Get("tool_calls").Array() {
		a.Calls = append(a.Calls, tc.Get("function.name").Str+tc.Get("function.arguments").Str)
	}
	if fc := m.Get("function_call"); fc.Exists() {
		a.Function = fc.Get("name").Str + fc.Get("arguments").Str
	}
	for _, k := range []string{"id", "object", "created", "model", "choices.0.index", "choices.0.message.refusal", "choices.0.logprobs", "usage.total_tokens"} {
		if !gjson.GetBytes(b, k).Exists() {
			t.Errorf("answer lacks %s: %s", k, b)
		}
	}
	return a
}

// drain reads a stream to its end, checking the chunk rules of
// wire-formats 1.4 on the way, and rebuilds the answer.
func drain(t *testing.T, st provider.Stream, includeUsage bool) (answer, []string, error) {
	t.Helper()
	var chunks []string
	var err error
	for {
		var b []byte
		if b, err = st.Next(); err != nil {
			break
		}
		chunks = append(chunks, string(b))
	}
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return rebuild(t, chunks, includeUsage, err == nil), chunks, err
}

// rebuilder accumulates a stream's chunks into an answer.
type rebuilder struct {
	t            *testing.T
	includeUsage bool
	a            answer
	text         strings.Builder
	sawText      bool
	ids          []string // tool call ids, by index
}

func rebuild(t *testing.T, chunks []string, includeUsage, complete bool) answer {
	t.Helper()
	rb := &rebuilder{t: t, includeUsage: includeUsage}
	for i, c := range chunks {
		root := gjson.Parse(c)
		if root.Get("object").Str != "chat.completion.chunk" || root.Get("id").Str != gjson.Get(chunks[0], "id").Str || root.Get("model").Str != "client-model" {
			t.Errorf("chunk %d head: %s", i, c)
		}
		if u := root.Get("usage"); u.Exists() != includeUsage {
			t.Errorf("chunk %d usage key present = %v, want %v", i, u.Exists(), includeUsage)
		}
		if i == 0 && root.Get("choices.0.delta.role").Str != "assistant" {
			t.Errorf("first chunk is not the role chunk: %s", c)
		}
		rb.add(root, i == len(chunks)-1)
	}
	a := rb.a
	if complete && (a.Finish == "" || includeUsage && a.Prompt == 0) {
		t.Errorf("stream lacks its finish or usage chunk: %q", chunks)
	}
	if rb.sawText || len(a.Calls) == 0 && a.Function == "" {
		a.Content = rb.text.String()
	}
	return a
}

// add takes in one chunk.
func (rb *rebuilder) add(root gjson.Result, last bool) {
	if len(root.Get("choices").Array()) == 0 {
		if !rb.includeUsage || !last {
			rb.t.Errorf("unexpected usage chunk: %s", root.Raw)
		}
		rb.a.Prompt, rb.a.Completed = int(root.Get("usage.prompt_tokens").Int()), int(root.Get("usage.completion_tokens").Int())
		rb.a.Cached = int(root.Get("usage.prompt_tokens_details.cached_tokens").Int())
		return
	}
	d := root.Get("choices.0.delta")
	if s := d.Get("content"); s.Type == gjson.String {
		rb.text.WriteString(s.Str)
		rb.sawText = rb.sawText || s.Str != ""
	}
	for _, tc := range d.Get("tool_calls").Array() {
		rb.toolCall(tc)
	}
	if fc := d.Get("function_call"); fc.Exists() {
		rb.a.Function += fc.Get("name").Str + fc.Get("arguments").Str
	}
	if f := root.Get("choices.0.finish_reason").Str; f != "" {
		if rb.a.Finish != "" || d.Raw != "{}" {
			rb.t.Errorf("second or non-empty finish chunk: %s", root.Raw)
		}
		rb.a.Finish = f
	}
}

// toolCall takes in a tool call delta: a new id must come with the next
// index, as clients accumulate arguments by index.
func (rb *rebuilder) toolCall(tc gjson.Result) {
	k := int(tc.Get("index").Int())
	if id := tc.Get("id").Str; id != "" {
		if k != len(rb.ids) || slices.Contains(rb.ids, id) {
			rb.t.Errorf("tool call %s has index %d after %d calls", id, k, len(rb.ids))
		}
		rb.ids = append(rb.ids, id)
		rb.a.Calls = append(rb.a.Calls, tc.Get("function.name").Str)
	}
	if k < len(rb.a.Calls) {
		rb.a.Calls[k] += tc.Get("function.arguments").Str
	}
}

type roundTrip struct {
	name string
	body string
	opt  fakeanthropic.Options
	want answer
}

func roundTrips(t *testing.T) []roundTrip {
	tools2 := `"tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}},{"type":"function","function":{"name":"get_time"}}]`
	return []roundTrip{
		{"text", string(readFile(t, "testdata/openai/chat_request_basic.json")), fakeanthropic.Options{},
			answer{Content: "You said: Say hello. and that is all I have to say", Finish: "stop", Prompt: 10, Completed: 12}},
		{"cached prompt", `{"messages":[{"role":"system","content":"Be kind and brief"},{"role":"user","content":"hi there"}]}`, fakeanthropic.Options{CacheReadTokens: 4, Words: 3},
			answer{Content: "You said: hi", Finish: "stop", Prompt: 9, Cached: 4, Completed: 3}},
		{"max tokens", `{"max_tokens":3,` + hello + `}`, fakeanthropic.Options{}, answer{Content: "You said: hi", Finish: "length", Prompt: 4, Completed: 3}},
		{"stop sequence", `{"stop":[" hi"],` + hello + `}`, fakeanthropic.Options{}, answer{Content: "You said:", Finish: "stop", Prompt: 4, Completed: 2}},
		{"forced tool", string(readFile(t, "testdata/openai/chat_request_tools.json")), fakeanthropic.Options{},
			answer{Calls: []string{`get_weather{"location":"Paris"}`}, Finish: "tool_calls", Prompt: 11, Completed: 10}},
		{"parallel tools after text", `{` + tools2 + `,` + hello + `}`, fakeanthropic.Options{},
			answer{Content: "Let me use get_weather.", Calls: []string{`get_weather{"city":"Paris"}`, `get_time{}`}, Finish: "tool_calls", Prompt: 4, Completed: 18}},
		{"required, one at a time", `{"tool_choice":"required","parallel_tool_calls":false,` + tools2 + `,` + hello + `}`, fakeanthropic.Options{},
			answer{Calls: []string{`get_weather{"city":"Paris"}`}, Finish: "tool_calls", Prompt: 4, Completed: 9}},
		{"legacy function", `{"functions":[{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}],` + hello + `}`, fakeanthropic.Options{},
			answer{Content: "Let me use get_weather.", Function: `get_weather{"city":"Paris"}`, Finish: "function_call", Prompt: 4, Completed: 13}},
		{"legacy history answered", string(readFile(t, "testdata/openai/chat_request_legacy_functions.json")), fakeanthropic.Options{Words: 2},
			answer{Content: "You said:", Finish: "stop", Prompt: 15, Completed: 2}},
		{"all roles and parts", string(readFile(t, "testdata/openai/chat_request_all_roles_and_parts.json")), fakeanthropic.Options{},
			answer{Content: "Let me use get_weather.", Calls: []string{`get_weather{"location":"Paris"}`}, Finish: "tool_calls", Prompt: 47, Completed: 14}},
		{"temperature 2 and top_p", `{"temperature":2,"top_p":0.5,` + hello + `}`, fakeanthropic.Options{Words: 2}, answer{Content: "You said:", Finish: "stop", Prompt: 4, Completed: 2}},
	}
}

// TestFakeRoundTrips sends each request plain and streamed (with and
// without usage) to the strict fake: all must be accepted and tell the
// same answer.
func TestFakeRoundTrips(t *testing.T) {
	for _, tt := range roundTrips(t) {
		t.Run(tt.name, func(t *testing.T) {
			srv, c := newFake(t, tt.opt)
			resp, err := c.Chat(context.Background(), chatRequest(tt.body, false))
			if err != nil {
				t.Fatalf("Chat: %s\nsent %s", describe(err), srv.Last().Body)
			}
			if diff := cmp.Diff(tt.want, answerOfBody(t, resp.Body)); diff != "" {
				t.Errorf("Chat mismatch (-want +got):\n%s\nbody %s", diff, resp.Body)
			}
			if u := resp.Usage; u.PromptTokens != tt.want.Prompt || u.CompletionTokens != tt.want.Completed || u.CachedTokens != tt.want.Cached || u.Estimated {
				t.Errorf("Usage = %+v", u)
			}
			checkStream(t, c, tt, true)
			checkStream(t, c, tt, false)
		})
	}
}

func checkStream(t *testing.T, c *Client, tt roundTrip, usage bool) {
	t.Helper()
	st, err := c.ChatStream(context.Background(), chatRequest(tt.body, usage))
	if err != nil {
		t.Fatalf("ChatStream: %s", describe(err))
	}
	defer st.Close()
	got, chunks, err := drain(t, st, usage)
	if err != nil {
		t.Fatalf("stream: %s", describe(err))
	}
	want := tt.want
	if !usage {
		want.Prompt, want.Cached, want.Completed = 0, 0, 0
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stream (usage %v) mismatch (-want +got):\n%s\n%s", usage, diff, strings.Join(chunks, "\n"))
	}
	if u := st.Usage(); u.PromptTokens != tt.want.Prompt || u.CompletionTokens != tt.want.Completed || u.CachedTokens != tt.want.Cached {
		t.Errorf("stream Usage = %+v", u)
	}
}

// TestFakeHeaders checks the request line and headers the upstream gets.
func TestFakeHeaders(t *testing.T) {
	srv, c := newFake(t, fakeanthropic.Options{})
	if _, err := c.Chat(context.Background(), chatRequest(`{`+hello+`}`, false)); err != nil {
		t.Fatal(describe(err))
	}
	st, err := c.ChatStream(context.Background(), chatRequest(`{`+hello+`}`, false))
	if err != nil {
		t.Fatal(describe(err))
	}
	st.Close()
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	for i, accept := range []string{"application/json", "text/event-stream"} {
		r := reqs[i]
		got := []string{r.Method, r.Path, r.Header.Get("X-Api-Key"), r.Header.Get("Anthropic-Version"), r.Header.Get("Content-Type"),
			r.Header.Get("Accept"), r.Header.Get("X-Request-Id"), gjson.GetBytes(r.Body, "stream").Raw}
		stream := ""
		if i == 1 {
			stream = "true"
		}
		want := []string{"POST", "/v1/messages", fakeKey, "2023-06-01", "application/json", accept, "req-test", stream}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("request %d mismatch (-want +got):\n%s", i, diff)
		}
	}
}

// TestFakeToolLoops runs client tool loops over several turns, feeding
// each answer back with results, as an agent does; the strict fake checks
// the pairing of calls and results every turn.
func TestFakeToolLoops(t *testing.T) {
	for _, name := range []string{"chat_request_all_roles_and_parts", "chat_request_legacy_functions"} {
		t.Run(name, func(t *testing.T) {
			srv, c := newFake(t, fakeanthropic.Options{})
			body := readFile(t, "testdata/openai/"+name+".json")
			body, _ = sjson.SetBytes(body, "messages.-1", map[string]any{"role": "user", "content": "And in Tokyo?"})
			legacy := strings.Contains(name, "legacy")
			for turn := 0; turn < 3; turn++ {
				resp, err := c.Chat(context.Background(), chatRequest(string(body), false))
				if err != nil {
					t.Fatalf("turn %d: %s\nsent %s", turn, describe(err), srv.Last().Body)
				}
				msg := gjson.GetBytes(resp.Body, "choices.0.message")
				body, _ = sjson.SetRawBytes(body, "messages.-1", []byte(msg.Raw))
				switch {
				case legacy && msg.Get("function_call").Exists():
					body, _ = sjson.SetBytes(body, "messages.-1", map[string]any{"role": "function", "name": msg.Get("function_call.name").Str, "content": "sunny"})
				case msg.Get("tool_calls").Exists():
					for _, tc := range msg.Get("tool_calls").Array() {
						body, _ = sjson.SetBytes(body, "messages.-1", map[string]any{"role": "tool", "tool_call_id": tc.Get("id").Str, "content": "sunny"})
					}
				default:
					body, _ = sjson.SetBytes(body, "messages.-1", map[string]any{"role": "user", "content": "Thanks. And tomorrow?"})
				}
			}
		})
	}
}
