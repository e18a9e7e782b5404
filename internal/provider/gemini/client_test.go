package gemini

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/fixture"
	"github.com/switchyard-gw/switchyard/internal/provider"
	fakegemini "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/gemini"
)

const (
	flash  = "gemini-2.5-flash"
	flash3 = "gemini-3-flash-preview"
)

// weatherTool is the tools array of the weather examples.
const weatherTool = `[{"type":"function","function":{"name":"get_weather","description":"Get the weather","parameters":{"type":"object","properties":{"location":{"type":"string"},"unit":{"type":"string","enum":["celsius","fahrenheit"]}},"required":["location"],"additionalProperties":false},"strict":true}}]`

// setup starts a strict fake Gemini and a client for it.
func setup(t *testing.T, opt fakegemini.Options) (*fakegemini.Server, *Client) {
	t.Helper()
	s := fakegemini.Start(opt)
	t.Cleanup(s.Close)
	c := New(Options{Name: "gemini-test", BaseURL: s.URL + "/", APIKey: fakegemini.DefaultKey, Timeout: 5 * time.Second})
	return s, c
}

func request(model, body string) *provider.Request {
	return &provider.Request{Endpoint: provider.EndpointChat, Model: "client-" + model, UpstreamModel: model, Body: []byte(body)}
}

func chat(t *testing.T, c *Client, r *provider.Request) gjson.Result {
	t.Helper()
	resp, err := c.Chat(t.Context(), r)
	if err != nil {
		t.Fatalf("Chat: %v", err)
	}
	if !gjson.ValidBytes(resp.Body) {
		t.Fatalf("invalid JSON: %s", resp.Body)
	}
	return gjson.ParseBytes(resp.Body)
}

// chunks reads a stream to its end.
func chunks(t *testing.T, c *Client, r *provider.Request) ([]gjson.Result, provider.Usage, error) {
	t.Helper()
	st, err := c.ChatStream(t.Context(), r)
	if err != nil {
		return nil, provider.Usage{}, err
	}
	defer st.Close()
	var out []gjson.Result
	for {
		b, err := st.Next()
		if errors.Is(err, io.EOF) {
			return out, st.Usage(), nil
		}
		if err != nil {
			return out, st.Usage(), err
		}
		if !gjson.ValidBytes(b) {
			t.Fatalf("invalid chunk: %s", b)
		}
		out = append(out, gjson.ParseBytes(b))
	}
}

func TestChatText(t *testing.T) {
	s, c := setup(t, fakegemini.Options{})
	got := chat(t, c, request(flash, `{"model":"m","messages":[{"role":"developer","content":"Be terse."},{"role":"user","content":"Say hello to the gateway"}],"temperature":0.2}`))
	last := s.Last()
	if diff := cmp.Diff("/v1beta/models/gemini-2.5-flash:generateContent", last.Path); diff != "" {
		t.Errorf("path (-want +got):\n%s", diff)
	}
	if k := last.Header.Get("X-Goog-Api-Key"); k != fakegemini.DefaultKey {
		t.Errorf("x-goog-api-key = %q", k)
	}
	if sys := gjson.GetBytes(last.Body, "systemInstruction.parts.0.text").Str; sys != "Be terse." {
		t.Errorf("systemInstruction %q", sys)
	}
	want := map[string]string{
		"object":                    "chat.completion",
		"model":                     "client-gemini-2.5-flash",
		"choices.0.message.role":    "assistant",
		"choices.0.message.content": "You said: Say hello to the gateway and that is all I",
		"choices.0.finish_reason":   "stop",
		"usage.prompt_tokens":       "5",
		"usage.completion_tokens":   "19", // 12 words + 7 thought tokens
		"usage.completion_tokens_details.reasoning_tokens": "7",
	}
	for path, w := range want {
		if g := got.Get(path).String(); g != w {
			t.Errorf("%s = %q, want %q", path, g, w)
		}
	}
}

func TestChatParameters(t *testing.T) {
	_, c := setup(t, fakegemini.Options{})
	for _, tt := range []struct {
		name, body string
		want       map[string]string
	}{
		{"max tokens", `{"messages":[{"role":"user","content":"one two three four"}],"max_completion_tokens":3}`,
			map[string]string{"choices.0.message.content": "You said: one", "choices.0.finish_reason": "length"}},
		{"stop", `{"messages":[{"role":"user","content":"one two three four"}],"stop":"three"}`,
			map[string]string{"choices.0.message.content": "You said: one two ", "choices.0.finish_reason": "stop"}},
		{"n", `{"messages":[{"role":"user","content":"hi"}],"n":2,"max_tokens":2}`,
			map[string]string{"choices.#": "2", "choices.1.index": "1", "choices.1.message.content": "You said:"}},
		{"json schema", `{"messages":[{"role":"user","content":"Extract: Alice is 31."}],"response_format":{"type":"json_schema","json_schema":{"name":"p","strict":true,"schema":{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"}},"required":["name","age"],"additionalProperties":false}}}}`,
			map[string]string{"choices.0.message.content": `{"age":1,"name":"Paris"}`}},
		{"media", `{"messages":[{"role":"user","content":[{"type":"text","text":"What is this?"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}},{"type":"image_url","image_url":{"url":"https://example.com/a.png"}}]}]}`,
			map[string]string{"choices.0.finish_reason": "stop"}},
		{"system only", `{"messages":[{"role":"system","content":"Write a haiku."}]}`,
			map[string]string{"choices.0.message.content": "You said: Write a haiku. and that is all I have to"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := chat(t, c, request(flash, tt.body))
			for path, w := range tt.want {
				if g := got.Get(path).String(); g != w {
					t.Errorf("%s = %q, want %q", path, g, w)
				}
			}
		})
	}
}

func TestChatToolCall(t *testing.T) {
	s, c := setup(t, fakegemini.Options{})
	got := chat(t, c, request(flash, `{"messages":[{"role":"user","content":"Weather in Paris?"}],"tools":`+weatherTool+`,"tool_choice":"required"}`))
	call := got.Get("choices.0.message.tool_calls.0")
	if got.Get("choices.0.finish_reason").Str != "tool_calls" || got.Get("choices.0.message.content").Type != gjson.Null {
		t.Errorf("finish/content: %s", got.Raw)
	}
	if diff := cmp.Diff(`{"location":"Paris, FR","unit":"celsius"}`, call.Get("function.arguments").Str); diff != "" {
		t.Errorf("arguments (-want +got):\n%s", diff)
	}
	if id := call.Get("id").Str; !strings.HasPrefix(id, "call_") || strings.Contains(id, sigMarker) {
		t.Errorf("id %q: want a plain call_ ID (Gemini 2.5 sends no signature)", id)
	}
	sent := gjson.ParseBytes(s.Last().Body)
	if sent.Get("tools.0.functionDeclarations.0.parameters.additionalProperties").Exists() {
		t.Errorf("additionalProperties sent: %s", sent.Get("tools").Raw)
	}
	if m := sent.Get("toolConfig.functionCallingConfig.mode").Str; m != "ANY" {
		t.Errorf("mode = %q, want ANY", m)
	}
}

// TestOneCall: a client that asked for no parallel calls gets the first.
func TestOneCall(t *testing.T) {
	_, c := setup(t, fakegemini.Options{})
	for _, stream := range []bool{false, true} {
		r := request(flash, `{"messages":[{"role":"user","content":"fake:parallel"}],"tools":`+weatherTool+`,"parallel_tool_calls":false}`)
		n := 0
		if stream {
			got, _, err := chunks(t, c, r)
			if err != nil {
				t.Fatal(err)
			}
			for _, ch := range got {
				n += len(ch.Get("choices.0.delta.tool_calls").Array())
			}
		} else {
			n = len(chat(t, c, r).Get("choices.0.message.tool_calls").Array())
		}
		if n != 1 {
			t.Errorf("stream=%v: %d calls, want 1", stream, n)
		}
	}
}

// TestGoldenInputsAgainstFake sends every golden request input through
// the client to the strict fake.
func TestGoldenInputsAgainstFake(t *testing.T) {
	_, c := setup(t, fakegemini.Options{})
	files := fixture.Glob(t, "testdata/request/*.json")
	for _, in := range files {
		name := strings.TrimSuffix(filepath.Base(in), ".json")
		t.Run(name, func(t *testing.T) {
			body, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := translateChat(&provider.Request{UpstreamModel: upstreamModel(name), Body: body}); err != nil {
				t.Skipf("refused by design: %v", err)
			}
			_, err = c.Chat(t.Context(), request(upstreamModel(name), string(body)))
			var pe *provider.Error
			if name == "gemini3_signatures" {
				// Its IDs carry the fixture's signature, which the fake
				// did not issue: the signature did arrive.
				if !errors.As(err, &pe) || !strings.Contains(pe.Message, "not issued") {
					t.Errorf("error %v, want the fake's unknown-signature 400", err)
				}
				return
			}
			if err != nil {
				t.Errorf("Chat: %v", err)
			}
		})
	}
}

func TestChatLegacyFunctions(t *testing.T) {
	_, c := setup(t, fakegemini.Options{})
	body := `{"messages":[{"role":"user","content":"Weather?"}],"functions":[{"name":"get_weather","parameters":{"type":"object","properties":{"location":{"type":"string"}}}}],"function_call":{"name":"get_weather"}}`
	got := chat(t, c, request(flash, body))
	if diff := cmp.Diff(`{"name":"get_weather","arguments":"{\"location\":\"Paris, FR\"}"}`, got.Get("choices.0.message.function_call").Raw); diff != "" {
		t.Errorf("function_call (-want +got):\n%s", diff)
	}
	if f := got.Get("choices.0.finish_reason").Str; f != "function_call" {
		t.Errorf("finish_reason = %q", f)
	}
	// The answer goes back as a function message.
	body = `{"messages":[{"role":"user","content":"Weather?"},{"role":"assistant","content":null,"function_call":{"name":"get_weather","arguments":"{\"location\":\"Paris, FR\"}"}},{"role":"function","name":"get_weather","content":"{\"temp_c\":18}"}],"functions":[{"name":"get_weather","parameters":{"type":"object","properties":{"location":{"type":"string"}}}}]}`
	got = chat(t, c, request(flash, body))
	if diff := cmp.Diff(`The function get_weather returned {"result":{"temp_c":18}}.`, got.Get("choices.0.message.content").Str); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
}

// TestGemini3RoundTrip is the multi-turn tool loop on a Gemini 3 model:
// the thought signature must come back through the tool-call ID.
func TestGemini3RoundTrip(t *testing.T) {
	s, c := setup(t, fakegemini.Options{})
	first := `{"role":"user","content":"Weather in Paris? fake:parallel"}`
	got := chat(t, c, request(flash3, `{"messages":[`+first+`],"tools":`+weatherTool+`}`))
	calls := got.Get("choices.0.message.tool_calls").Array()
	if len(calls) != 2 || got.Get("choices.0.finish_reason").Str != "tool_calls" {
		t.Fatalf("want two tool calls: %s", got.Raw)
	}
	id0, id1 := calls[0].Get("id").Str, calls[1].Get("id").Str
	if !strings.Contains(id0, sigMarker) || strings.Contains(id1, sigMarker) {
		t.Fatalf("ids %q, %q: only the first call carries a signature", id0, id1)
	}
	history := func(id0, id1 string) string {
		return `{"messages":[` + first + `,{"role":"assistant","content":null,"tool_calls":[` +
			`{"id":"` + id0 + `","type":"function","function":{"name":"get_weather","arguments":` + quote(calls[0].Get("function.arguments").Str) + `}},` +
			`{"id":"` + id1 + `","type":"function","function":{"name":"get_weather","arguments":` + quote(calls[1].Get("function.arguments").Str) + `}}]},` +
			`{"role":"tool","tool_call_id":"` + id1 + `","content":"{\"temp_c\":25}"},` +
			`{"role":"tool","tool_call_id":"` + id0 + `","content":"{\"temp_c\":18}"}],"tools":` + weatherTool + `}`
	}
	got = chat(t, c, request(flash3, history(id0, id1)))
	want := `The function get_weather returned {"result":{"temp_c":18}}. The function get_weather returned {"result":{"temp_c":25}}.`
	if diff := cmp.Diff(want, got.Get("choices.0.message.content").Str); diff != "" {
		t.Errorf("answer (-want +got):\n%s", diff)
	}
	sent := gjson.ParseBytes(s.Last().Body).Get("contents.1.parts")
	if sig := sent.Get("0.thoughtSignature").Str; sig != signatureOf(id0) || !strings.Contains(sig, "+/+/") {
		t.Errorf("signature sent back = %q, want the fake's %q", sig, signatureOf(id0))
	}
	if sent.Get("1.thoughtSignature").Exists() {
		t.Errorf("second call got a signature: %s", sent.Raw)
	}
	// A client that lost the ID's tail: the documented skip value keeps
	// the conversation going.
	plain := id0[:strings.Index(id0, sigMarker)]
	chat(t, c, request(flash3, history(plain, id1)))
	if sig := gjson.GetBytes(s.Last().Body, "contents.1.parts.0.thoughtSignature").Str; sig != skipSignature {
		t.Errorf("signature = %q, want %q", sig, skipSignature)
	}
}

func quote(s string) string { return string(gjson.AppendJSONString(nil, s)) }

func TestSchemaReduction(t *testing.T) {
	s, c := setup(t, fakegemini.Options{})
	params := `{"type":"object","$schema":"http://json-schema.org/draft-07/schema#","properties":{"who":{"$ref":"#/$defs/P"},"note":{"anyOf":[{"type":"string"},{"type":"null"}]},"tags":{"type":"array","items":{"type":"string"},"uniqueItems":true}},"required":["who","note"],"additionalProperties":false,"$defs":{"P":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"],"additionalProperties":false}}}`
	got := chat(t, c, request(flash, `{"messages":[{"role":"user","content":"Go"}],"tools":[{"type":"function","function":{"name":"f","parameters":`+params+`}}]}`))
	if got.Get("choices.0.finish_reason").Str != "tool_calls" {
		t.Fatalf("fake refused or did not call: %s", got.Raw)
	}
	sent := gjson.GetBytes(s.Last().Body, "tools.0.functionDeclarations.0.parameters").Raw
	want := `{"type":"object","properties":{"who":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]},"note":{"nullable":true,"type":"string"},"tags":{"type":"array","items":{"type":"string"}}},"required":["who","note"]}`
	if diff := cmp.Diff(want, sent); diff != "" {
		t.Errorf("parameters (-want +got):\n%s", diff)
	}
}

func TestBadRequests(t *testing.T) {
	s, c := setup(t, fakegemini.Options{})
	for _, tt := range []struct {
		name, body, param string
	}{
		{"recursive schema", `{"messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"walk","parameters":{"type":"object","properties":{"n":{"$ref":"#/$defs/N"}},"$defs":{"N":{"type":"object","properties":{"next":{"$ref":"#/$defs/N"}}}}}}}]}`, "tools[0].function.parameters"},
		{"custom tool", `{"messages":[{"role":"user","content":"x"}],"tools":[{"type":"custom","custom":{"name":"x"}}]}`, "tools[0].type"},
		{"logprobs", `{"messages":[{"role":"user","content":"x"}],"logprobs":true}`, "logprobs"},
		{"unanswered call", `{"messages":[{"role":"user","content":"x"},{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"user","content":"y"}]}`, "messages[1]"},
		{"stray tool message", `{"messages":[{"role":"user","content":"x"},{"role":"tool","tool_call_id":"zz","content":"1"}]}`, "messages[1].tool_call_id"},
		{"arguments not an object", `{"messages":[{"role":"user","content":"x"},{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"[1]"}}]},{"role":"tool","tool_call_id":"a","content":"1"}]}`, "messages[1].tool_calls[0].function.arguments"},
		{"call first", `{"messages":[{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"a","content":"1"}]}`, "messages"},
		{"file id", `{"messages":[{"role":"user","content":[{"type":"file","file":{"file_id":"file-1"}}]}]}`, "messages[0].content[0].file.file_id"},
		{"bad data url", `{"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png,abc"}}]}]}`, "messages[0].content[0].image_url.url"},
		{"function name", `{"messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"1st"}}]}`, "tools[0].function.name"},
		{"too many candidates", `{"messages":[{"role":"user","content":"x"}],"n":9}`, "n"},
		{"empty", `{"messages":[{"role":"user","content":""}]}`, "messages"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := len(s.Requests())
			_, err := c.Chat(t.Context(), request(flash, tt.body))
			var pe *provider.Error
			if !errors.As(err, &pe) || pe.Kind != provider.KindBadRequest || pe.Provider != "gemini-test" {
				t.Fatalf("error %v, want a KindBadRequest from gemini-test", err)
			}
			if diff := cmp.Diff(tt.param, pe.Param); diff != "" {
				t.Errorf("param (-want +got):\n%s", diff)
			}
			if len(s.Requests()) != before {
				t.Error("a refused request reached the upstream")
			}
		})
	}
}

func TestNameAndType(t *testing.T) {
	c := New(Options{Name: "gem"})
	if c.Name() != "gem" || c.Type() != "gemini" {
		t.Errorf("Name %q Type %q", c.Name(), c.Type())
	}
}
