package api

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/gateway"
	"github.com/switchyard-gw/switchyard/internal/jsonscan"
)

// Each bad body must be refused with 400 and param naming the field.
func TestCheckChat(t *testing.T) {
	const msgs = `"messages":[{"role":"user","content":"hi"}]`
	tests := []struct {
		name, body, param string
	}{
		{"model missing", `{` + msgs + `}`, "model"},
		{"model null", `{"model":null,` + msgs + `}`, "model"},
		{"model number", `{"model":1,` + msgs + `}`, "model"},
		{"model empty", `{"model":"",` + msgs + `}`, "model"},
		{"messages missing", `{"model":"m"}`, "messages"},
		{"messages empty", `{"model":"m","messages":[]}`, "messages"},
		{"messages object", `{"model":"m","messages":{}}`, "messages"},
		{"messages string", `{"model":"m","messages":"hi"}`, "messages"},
		{"message not object", `{"model":"m","messages":["hi"]}`, "messages[0]"},
		{"role missing", `{"model":"m","messages":[{"content":"hi"}]}`, "messages[0].role"},
		{"role unknown", `{"model":"m","messages":[{"role":"robot","content":"hi"}]}`, "messages[0].role"},
		{"role number", `{"model":"m","messages":[{"role":1,"content":"hi"}]}`, "messages[0].role"},
		{"content missing", `{"model":"m","messages":[{"role":"user"}]}`, "messages[0].content"},
		{"content number", `{"model":"m","messages":[{"role":"user","content":5}]}`, "messages[0].content"},
		{"content object", `{"model":"m","messages":[{"role":"system","content":{"text":"x"}}]}`, "messages[0].content"},
		{"image in system", `{"model":"m","messages":[{"role":"system","content":[{"type":"image_url","image_url":{"url":"x"}}]}]}`, "messages[0].content[0].type"},
		{"text part without text", `{"model":"m","messages":[{"role":"user","content":[{"type":"text"}]}]}`, "messages[0].content[0].text"},
		{"image without url", `{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{}}]}]}`, "messages[0].content[0].image_url.url"},
		{"second message bad", `{"model":"m","messages":[{"role":"user","content":"a"},{"role":"assistant"}]}`, "messages[1].content"},
		{"tool without id", `{"model":"m","messages":[{"role":"tool","content":"r"}]}`, "messages[0].tool_call_id"},
		{"function without name", `{"model":"m","messages":[{"role":"function","content":"r"}]}`, "messages[0].name"},
		{"tool call args object", `{"model":"m","messages":[{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":{}}}]}]}`, "messages[0].tool_calls[0].function.arguments"},
		{"temperature high", `{"model":"m",` + msgs + `,"temperature":2.5}`, "temperature"},
		{"temperature negative", `{"model":"m",` + msgs + `,"temperature":-0.1}`, "temperature"},
		{"temperature string", `{"model":"m",` + msgs + `,"temperature":"hot"}`, "temperature"},
		{"top_p high", `{"model":"m",` + msgs + `,"top_p":1.5}`, "top_p"},
		{"presence_penalty", `{"model":"m",` + msgs + `,"presence_penalty":-2.1}`, "presence_penalty"},
		{"frequency_penalty", `{"model":"m",` + msgs + `,"frequency_penalty":2.01}`, "frequency_penalty"},
		{"max_tokens zero", `{"model":"m",` + msgs + `,"max_tokens":0}`, "max_tokens"},
		{"max_tokens negative", `{"model":"m",` + msgs + `,"max_tokens":-5}`, "max_tokens"},
		{"max_tokens float", `{"model":"m",` + msgs + `,"max_tokens":1.5}`, "max_tokens"},
		{"max_tokens string", `{"model":"m",` + msgs + `,"max_tokens":"10"}`, "max_tokens"},
		{"max_completion_tokens", `{"model":"m",` + msgs + `,"max_completion_tokens":0}`, "max_completion_tokens"},
		{"n zero", `{"model":"m",` + msgs + `,"n":0}`, "n"},
		{"stop number", `{"model":"m",` + msgs + `,"stop":5}`, "stop"},
		{"stop five", `{"model":"m",` + msgs + `,"stop":["a","b","c","d","e"]}`, "stop"},
		{"stop element", `{"model":"m",` + msgs + `,"stop":["a",1]}`, "stop[1]"},
		{"stream string", `{"model":"m",` + msgs + `,"stream":"yes"}`, "stream"},
		{"stream_options without stream", `{"model":"m",` + msgs + `,"stream_options":{"include_usage":true}}`, "stream_options"},
		{"logit_bias range", `{"model":"m",` + msgs + `,"logit_bias":{"50256":-101}}`, "logit_bias"},
		{"functions not array", `{"model":"m",` + msgs + `,"functions":{}}`, "functions"},
		{"functions empty", `{"model":"m",` + msgs + `,"functions":[]}`, "functions"},
		{"function no name", `{"model":"m",` + msgs + `,"functions":[{"parameters":{}}]}`, "functions[0].name"},
		{"function bad name", `{"model":"m",` + msgs + `,"functions":[{"name":"get weather"}]}`, "functions[0].name"},
		{"function params array", `{"model":"m",` + msgs + `,"functions":[{"name":"f","parameters":[]}]}`, "functions[0].parameters"},
		{"function params string", `{"model":"m",` + msgs + `,"functions":[{"name":"f","parameters":"x"}]}`, "functions[0].parameters"},
		{"function_call bad string", `{"model":"m",` + msgs + `,"functions":[{"name":"f"}],"function_call":"always"}`, "function_call"},
		{"function_call unknown name", `{"model":"m",` + msgs + `,"functions":[{"name":"f"}],"function_call":{"name":"g"}}`, "function_call"},
		{"function_call number", `{"model":"m",` + msgs + `,"functions":[{"name":"f"}],"function_call":1}`, "function_call"},
		{"tools and functions", `{"model":"m",` + msgs + `,"functions":[{"name":"f"}],"tools":[{"type":"function","function":{"name":"g"}}]}`, "functions"},
		{"tool type", `{"model":"m",` + msgs + `,"tools":[{"type":"magic"}]}`, "tools[0].type"},
		{"tool_choice unknown", `{"model":"m",` + msgs + `,"tools":[{"type":"function","function":{"name":"g"}}],"tool_choice":{"type":"function","function":{"name":"h"}}}`, "tool_choice"},
		{"response_format type", `{"model":"m",` + msgs + `,"response_format":{"type":"yaml"}}`, "response_format.type"},
		{"top_logprobs", `{"model":"m",` + msgs + `,"top_logprobs":21}`, "top_logprobs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, e := checkChat([]byte(tt.body))
			if e == nil {
				t.Fatalf("accepted %s", tt.body)
			}
			if e.Status != 400 || e.Type != "invalid_request_error" || e.Param != tt.param {
				t.Errorf("got status %d type %s param %q (%s), want 400 param %q", e.Status, e.Type, e.Param, e.Message, tt.param)
			}
			if !strings.Contains(e.Message, tt.param) && tt.param != "model" {
				t.Errorf("message %q does not name %q", e.Message, tt.param)
			}
		})
	}
}

func TestCheckChatAccepts(t *testing.T) {
	for _, body := range []string{
		`{"model":"m","messages":[{"role":"user","content":"hi"}]}`,
		`{"model":"m","messages":[{"role":"developer","content":[{"type":"text","text":"be brief"}]},{"role":"user","name":"ann","content":[{"type":"text","text":"x"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AA=="}}]}],"temperature":0,"top_p":1,"n":2,"stop":"\n","max_tokens":5,"seed":42,"user":"u","logit_bias":{"50256":-100},"unknown_field":{"kept":true}}`,
		`{"model":"m","messages":[{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"ok"}],"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}],"tool_choice":{"type":"function","function":{"name":"f"}},"parallel_tool_calls":false}`,
		`{"model":"m","messages":[{"role":"assistant","content":null,"function_call":{"name":"f","arguments":"{}"}},{"role":"function","name":"f","content":null}],"functions":[{"name":"f","parameters":{"type":"object","properties":{}}}],"function_call":{"name":"f"}}`,
		`{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true,"stream_options":{"include_usage":true},"response_format":{"type":"json_schema","json_schema":{"name":"x","schema":{}}}}`,
		`{"model":"m","messages":[{"role":"user","content":"hi"}],"temperature":null,"max_tokens":null,"stop":null,"functions":null}`,
	} {
		if _, e := checkChat([]byte(body)); e != nil {
			t.Errorf("refused %s: %s (param %s)", body, e.Message, e.Param)
		}
	}
}

func TestCheckCompletionAndEmbedding(t *testing.T) {
	tests := []struct {
		name     string
		check    func([]byte) *Error
		body     string
		param    string // "" = accepted
		inputs   int
		prompts  int
		isTokens bool
	}{
		{"prompt string", compl, `{"model":"m","prompt":"hi"}`, "", 0, 1, false},
		{"prompt empty string ok", compl, `{"model":"m","prompt":""}`, "", 0, 1, false},
		{"prompt array", compl, `{"model":"m","prompt":["a","b"]}`, "", 0, 2, false},
		{"prompt tokens", compl, `{"model":"m","prompt":[1,2,3]}`, "", 0, 0, true},
		{"prompt token arrays", compl, `{"model":"m","prompt":[[1,2],[3]]}`, "", 0, 0, true},
		{"prompt missing", compl, `{"model":"m"}`, "prompt", 0, 0, false},
		{"prompt number", compl, `{"model":"m","prompt":5}`, "prompt", 0, 0, false},
		{"prompt mixed", compl, `{"model":"m","prompt":["a",1]}`, "prompt[1]", 0, 0, false},
		{"prompt negative token", compl, `{"model":"m","prompt":[1,-2]}`, "prompt[1]", 0, 0, false},
		// Issue 13: each prompt is one upstream call on a chat model.
		{"too many prompts", compl, `{"model":"m","prompt":[` + strings.Repeat(`"x",`, 2048) + `"x"]}`, "prompt", 0, 0, false},
		{"too many token prompts", compl, `{"model":"m","prompt":[` + strings.Repeat(`[1],`, 2048) + `[1]]}`, "prompt", 0, 0, false},
		{"2048 prompts", compl, `{"model":"m","prompt":[` + strings.Repeat(`"x",`, 2047) + `"x"]}`, "", 0, 2048, false},
		{"completion logprobs", compl, `{"model":"m","prompt":"x","logprobs":6}`, "logprobs", 0, 0, false},
		{"completion temperature", compl, `{"model":"m","prompt":"x","temperature":3}`, "temperature", 0, 0, false},
		{"completion max_tokens", compl, `{"model":"m","prompt":"x","max_tokens":0}`, "max_tokens", 0, 0, false},
		{"input string", embed, `{"model":"m","input":"hi"}`, "", 1, 0, false},
		{"input array", embed, `{"model":"m","input":["a","b","c"]}`, "", 3, 0, false},
		{"input token array is one input", embed, `{"model":"m","input":[1,2,3]}`, "", 1, 0, false},
		{"input token arrays", embed, `{"model":"m","input":[[1],[2]]}`, "", 2, 0, false},
		{"input empty string", embed, `{"model":"m","input":""}`, "input", 0, 0, false},
		{"input empty array", embed, `{"model":"m","input":[]}`, "input", 0, 0, false},
		{"input empty element", embed, `{"model":"m","input":["a",""]}`, "input[1]", 0, 0, false},
		{"input empty token array", embed, `{"model":"m","input":[[1],[]]}`, "input[1]", 0, 0, false},
		{"input missing", embed, `{"model":"m"}`, "input", 0, 0, false},
		{"input object", embed, `{"model":"m","input":{}}`, "input", 0, 0, false},
		{"too many inputs", embed, `{"model":"m","input":[` + strings.Repeat(`"x",`, 2048) + `"x"]}`, "input", 0, 0, false},
		{"2048 inputs", embed, `{"model":"m","input":[` + strings.Repeat(`"x",`, 2047) + `"x"]}`, "", 2048, 0, false},
		{"encoding_format", embed, `{"model":"m","input":"x","encoding_format":"hex"}`, "encoding_format", 0, 0, false},
		{"dimensions zero", embed, `{"model":"m","input":"x","dimensions":0}`, "dimensions", 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := tt.check([]byte(tt.body))
			if tt.param == "" {
				if e != nil {
					t.Fatalf("refused: %s", e.Message)
				}
				return
			}
			if e == nil || e.Status != 400 || e.Param != tt.param {
				t.Fatalf("got %+v, want 400 param %q", e, tt.param)
			}
		})
	}
	cr, _ := checkCompletion([]byte(`{"model":"m","prompt":["a","b"],"stream":true,"stream_options":{"include_usage":true}}`))
	if len(cr.Prompts) != 2 || !cr.Stream || !cr.IncludeUsage {
		t.Errorf("checkCompletion = %+v", cr)
	}
	er, _ := checkEmbedding([]byte(`{"model":"m","input":[[1],[2]],"encoding_format":"base64","dimensions":8}`))
	if er.Inputs != 2 || !er.Base64 || er.Dimensions != 8 {
		t.Errorf("checkEmbedding = %+v", er)
	}
}

func compl(b []byte) *Error { _, e := checkCompletion(b); return e }
func embed(b []byte) *Error { _, e := checkEmbedding(b); return e }

// FuzzDecode feeds arbitrary bodies to every request decoder: none may
// panic, and whatever is refused is a 400 naming a field or the body.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"model":"m","messages":[{"role":"user","content":"hi"}]}`,
		`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"x"}]}],"functions":[{"name":"f"}],"function_call":{"name":"f"}}`,
		`{"model":"m","prompt":[[1,2],[3]]}`, `{"model":"m","input":["a"],"encoding_format":"base64"}`,
		`{"model":"m","messages":[{"role":"tool"}],"tools":[{"type":"function","function":{"name":"x"}}],"tool_choice":{"type":"function"}}`,
		`{}`, `[]`, `{"model":`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if checkJSONObject(jsonscan.NewScanner(jsonscan.Options{FoldTopLevel: true}), body) != nil {
			return
		}
		for _, check := range []func([]byte) *Error{func(b []byte) *Error { _, e := checkChat(b); return e }, compl, embed} {
			if e := check(body); e != nil && (e.Status != 400 || e.Message == "") {
				t.Errorf("bad error %+v", e)
			}
		}
	})
}

// TestFields finds each top-level field as gjson.Get does: the first of
// duplicates, keys with escapes, past the sixteen held inline, and
// nothing for a field absent or nested.
func TestFields(t *testing.T) {
	var many strings.Builder
	many.WriteString(`{"messages":[{"role":"user","content":"hi","n":7}]`)
	for i := range 40 {
		fmt.Fprintf(&many, `,"k%d":%d`, i, i)
	}
	many.WriteString(`,"model":"last"}`)
	bodies := []string{
		`{"model":"m","n":2,"stream":true,"stream_options":{"include_usage":true}}`,
		`{"mod\u0065l":"escaped","temperature":1.5,"user":null}`,
		`{"n":1,"n":2}`,
		many.String(),
	}
	names := []string{"model", "n", "stream", "stream_options", "temperature", "user", "messages", "role", "k0", "k15", "k16", "k39", "absent"}
	for _, body := range bodies {
		var f fields
		f.read([]byte(body))
		for _, name := range names {
			if got, want := f.get(name), gjson.Get(body, name); got.Raw != want.Raw || got.Type != want.Type || got.Str != want.Str {
				t.Errorf("%s: get(%q) = %q (%v), gjson.Get = %q (%v)", body, name, got.Raw, got.Type, want.Raw, want.Type)
			}
		}
	}
}

// TestCheckedKeepsNoBody: what validation returns outlives the body,
// whose buffer is reused for the next request.
func TestCheckedKeepsNoBody(t *testing.T) {
	body := []byte(`{"model":"model-a","messages":[{"role":"user","content":"hi"}]}`)
	chat, _ := checkChat(body)
	prompt := []byte(`{"model":"model-b","prompt":["one","two"]}`)
	compl, _ := checkCompletion(prompt)
	embed, _ := checkEmbedding([]byte(`{"model":"model-c","input":"x"}`))
	for _, b := range [][]byte{body, prompt} {
		for i := range b {
			b[i] = '#'
		}
	}
	if chat.Model != "model-a" || compl.Model != "model-b" || embed.Model != "model-c" ||
		!slices.Equal(compl.Prompts, []string{"one", "two"}) {
		t.Errorf("after the bodies were overwritten: chat %q, completion %q %q, embeddings %q",
			chat.Model, compl.Model, compl.Prompts, embed.Model)
	}
}

// TestCheckChatAllocs: a plain chat body's validation allocates only the
// model ID it returns, whatever the escapes in its messages (issue 18).
func TestCheckChatAllocs(t *testing.T) {
	body := []byte(`{"model":"gpt-5.4-mini","messages":[{"role":"system","content":"Be brief.\nNo \"quotes\"."},{"role":"user","content":"hi"}],"temperature":0.2,"stream":false}`)
	if n := testing.AllocsPerRun(100, func() {
		if _, e := checkChat(body); e != nil {
			t.Fatal(e)
		}
	}); n > 1 {
		t.Errorf("checkChat: %v allocations, want 1", n)
	}
}

// The validation walk reads the fields that size the answers, for the
// rate limits, which then do not walk the body again (issue 18): the
// first of duplicates, fields after the messages, not those within them.
func TestCheckedSizes(t *testing.T) {
	const msgs = `"messages":[{"role":"user","content":"hi","max_tokens":7,"n":9}]`
	tests := []struct {
		name, body string
		completion bool
		want       gateway.Sizes
	}{
		{"chat none", `{"model":"m",` + msgs + `}`, false, gateway.Sizes{Read: true, Prompts: 1}},
		{"chat all", `{"model":"m",` + msgs + `,"max_completion_tokens":50,"max_tokens":100,"n":3}`, false,
			gateway.Sizes{Read: true, MaxCompletionTokens: 50, MaxTokens: 100, N: 3, Prompts: 1}},
		{"chat duplicates", `{"model":"m","max_tokens":100,` + msgs + `,"max_tokens":5}`, false,
			gateway.Sizes{Read: true, MaxTokens: 100, Prompts: 1}},
		{"completion prompts", `{"model":"m","prompt":["a","b","c"],"max_tokens":10,"n":2,"best_of":4}`, true,
			gateway.Sizes{Read: true, MaxTokens: 10, N: 2, BestOf: 4, Prompts: 3}},
		{"completion token IDs", `{"model":"m","prompt":[1,2,3]}`, true, gateway.Sizes{Read: true, Prompts: 1}},
		{"completion token prompts", `{"model":"m","prompt":[[1],[2]]}`, true, gateway.Sizes{Read: true, Prompts: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got gateway.Sizes
			var e *Error
			if tt.completion {
				var cr completionRequest
				cr, e = checkCompletion([]byte(tt.body))
				got = cr.Sizes
			} else {
				var cr chatRequest
				cr, e = checkChat([]byte(tt.body))
				got = cr.Sizes
			}
			if e != nil {
				t.Fatal(e)
			}
			if got != tt.want {
				t.Errorf("sizes %+v, want %+v", got, tt.want)
			}
		})
	}
}

// The validation walk reads the same sizes as gateway.SizesOf, the walk
// the limits make of a body its handler did not read: run both over each
// body, on the raw fields and, where the body is valid, on what
// checkChat and checkCompletion return, so that the two cannot drift
// apart.
func TestSizesAgree(t *testing.T) {
	const head = `{"model":"m","messages":[{"role":"user","content":"hi","max_tokens":7,"n":9,"prompt":["x","y"]}],`
	tests := []struct {
		name   string
		fields string // after head, before the closing brace
		// valid says which checks accept the body: "chat", "completion",
		// "both" or "" (neither).
		valid string
	}{
		{"none", `"prompt":"a"`, "both"},
		{"all", `"prompt":"a","max_completion_tokens":50,"max_tokens":100,"n":3,"best_of":4`, "both"},
		{"duplicates", `"max_tokens":100,"prompt":"a","n":2,"max_tokens":5,"n":7`, "both"},
		{"duplicate prompts", `"prompt":["a","b","c"],"prompt":"d"`, "both"},
		{"escaped keys", `"max\u005ftokens":100,"\u006e":2,"prompt":["a","b"],"max_completion\u005Ftokens":9`, "both"},
		{"escaped then plain", `"max\u005ftokens":7,"max_tokens":9,"prompt":"a"`, "both"},
		{"escaped prompt key", `"pr\u006fmpt":["a","b","c"]`, "both"},
		{"null", `"max_tokens":null,"n":null,"best_of":null,"prompt":"a"`, "both"},
		{"null then number", `"max_tokens":null,"max_tokens":5,"prompt":"a"`, "both"},
		{"null prompt", `"prompt":null`, "chat"},
		{"strings", `"max_tokens":"100","n":"2","best_of":"3","prompt":"a"`, ""},
		{"max int64", `"max_tokens":9223372036854775807,"max_completion_tokens":9223372036854775807,"prompt":"a"`, "both"},
		{"out of range", `"max_tokens":99999999999999999999,"n":1e30,"best_of":-1e30,"prompt":"a"`, ""},
		{"out of range max_completion_tokens", `"max_completion_tokens":9223372036854775808,"prompt":"a"`, "completion"},
		{"floats", `"max_tokens":10.0,"n":2.5,"prompt":"a"`, ""},
		{"negative", `"max_tokens":-5,"n":-1,"best_of":-2,"max_completion_tokens":-3,"prompt":"a"`, ""},
		{"zero", `"max_tokens":0,"prompt":"a"`, ""},
		{"nested objects", `"metadata":{"max_tokens":"5","n":"3"},"extra":{"max_tokens":5,"prompt":["a","b"]},"prompt":"a"`, "both"},
		{"object values", `"max_tokens":{"max_tokens":5},"n":[2],"prompt":"a"`, ""},
		{"token IDs", `"prompt":[1,2,3],"max_tokens":10`, "both"},
		{"token prompts", `"prompt":[[1],[2,3]],"n":2`, "both"},
		{"prompts after the sizes", `"max_tokens":10,"n":2,"best_of":4,"prompt":["a","b","c"]`, "both"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := []byte(head + tt.fields + `}`)
			want := gateway.SizesOf(body)
			// The prompts are counted by the completion's validation
			// (compared below) and not at all for a chat: a chat's
			// number is 1, whatever its "prompt" member.
			var f fields
			f.read(body)
			if got := f.sizes(int(want.Prompts)); got != want {
				t.Errorf("fields: sizes %+v, gateway.SizesOf %+v", got, want)
			}
			chatWant := want
			chatWant.Prompts = 1
			chat, ce := checkChat(body)
			if ce == nil && chat.Sizes != chatWant {
				t.Errorf("checkChat: sizes %+v, want gateway.SizesOf's %+v", chat.Sizes, chatWant)
			}
			compl, pe := checkCompletion(body)
			if pe == nil && compl.Sizes != want {
				t.Errorf("checkCompletion: sizes %+v, gateway.SizesOf %+v", compl.Sizes, want)
			}
			valid := map[[2]bool]string{{true, true}: "both", {true, false}: "chat", {false, true}: "completion"}[[2]bool{ce == nil, pe == nil}]
			if valid != tt.valid {
				t.Errorf("valid for %q, want %q (chat: %v; completion: %v)", valid, tt.valid, ce, pe)
			}
		})
	}
}

// A chat's sizes ignore a "prompt" member, which only a legacy
// completion has: it is not walked (it may be large, and is not
// validated); a completion's count of prompts is the one its validation
// made, the same as the walk of gateway.SizesOf.
func TestSizesPrompts(t *testing.T) {
	const chat = `{"model":"m","messages":[{"role":"user","content":"hi"}],"prompt":["a","b","c"],"max_tokens":5}`
	cr, e := checkChat([]byte(chat))
	if e != nil {
		t.Fatal(e)
	}
	if want := (gateway.Sizes{Read: true, MaxTokens: 5, Prompts: 1}); cr.Sizes != want {
		t.Errorf("chat with a prompt: sizes %+v, want %+v", cr.Sizes, want)
	}
	tests := []struct {
		prompt string
		want   int64
	}{
		{`"a"`, 1},
		{`""`, 1},
		{`["a"]`, 1},
		{`["a","b","c"]`, 3},
		{`["",""]`, 2},
		{`[1]`, 1},
		{`[1,2,3]`, 1},
		{`[[1]]`, 1},
		{`[[1],[2,3],[4]]`, 3},
	}
	for _, tt := range tests {
		body := []byte(`{"model":"m","prompt":` + tt.prompt + `}`)
		cr, e := checkCompletion(body)
		if e != nil {
			t.Fatalf("%s: %v", tt.prompt, e)
		}
		if cr.Sizes.Prompts != tt.want || gateway.SizesOf(body).Prompts != tt.want {
			t.Errorf("prompt %s: %d prompts (gateway.SizesOf: %d), want %d", tt.prompt, cr.Sizes.Prompts, gateway.SizesOf(body).Prompts, tt.want)
		}
	}
}
