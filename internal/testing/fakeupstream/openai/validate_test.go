package fakeopenai

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// chatBody is a valid chat request with extra appended to its fields.
func chatBody(extra string) string {
	return `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]` + extra + `}`
}

// msgs is a valid chat request with the given messages.
func msgs(list string) string { return `{"model":"gpt-4o-mini","messages":[` + list + `]}` }

const weatherTool = `{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}}}`

type reject struct {
	name, path, body string
	header           []string
	status           int
	param, code      string
}

func checkRejects(t *testing.T, s *Server, tests []reject) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := tt.path
			if path == "" {
				path = "/chat/completions"
			}
			r := do(t, s, "POST", path, tt.body, tt.header...)
			e := gjson.ParseBytes(r.body).Get("error")
			if r.status != tt.status || e.Get("param").Str != tt.param || e.Get("code").Str != tt.code {
				t.Errorf("got %d param=%q code=%q, want %d param=%q code=%q; body %s", r.status, e.Get("param").Str, e.Get("code").Str, tt.status, tt.param, tt.code, r.body)
			}
			for _, k := range []string{"message", "type", "param", "code"} {
				if !e.Get(k).Exists() {
					t.Errorf("error has no %q: %s", k, r.body)
				}
			}
		})
	}
}

func TestRejectsTransport(t *testing.T) {
	s := start(t, Options{})
	ok := chatBody("")
	checkRejects(t, s, []reject{
		{name: "no key", body: ok, header: []string{"Authorization", ""}, status: 401},
		{name: "wrong key", body: ok, header: []string{"Authorization", "Bearer sk-wrong-key-123456"}, status: 401, code: "invalid_api_key"},
		{name: "basic auth", body: ok, header: []string{"Authorization", "Basic dGVzdA=="}, status: 401},
		{name: "azure api-key", body: ok, header: []string{"Authorization", "", "Api-Key", defaultKey}, status: 401},
		{name: "text/plain", body: ok, header: []string{"Content-Type", "text/plain"}, status: 400},
		{name: "no content type", body: ok, header: []string{"Content-Type", ""}, status: 400},
		{name: "invalid json", body: `{"model":`, status: 400},
		{name: "json array", body: `[1]`, status: 400},
		{name: "empty body", body: ``, status: 400},
	})
	r := do(t, s, "POST", "/chat/completions", ok, "Content-Type", "application/json; charset=utf-8")
	wantOK(t, r)
}

func TestRejectsChat(t *testing.T) {
	s := start(t, Options{})
	checkRejects(t, s, []reject{
		{name: "unknown field", body: chatBody(`,"top_k":5`), status: 400},
		{name: "missing model", body: `{"messages":[{"role":"user","content":"hi"}]}`, status: 400, param: "model", code: "missing_required_parameter"},
		{name: "model not string", body: `{"model":4,"messages":[{"role":"user","content":"hi"}]}`, status: 400, param: "model", code: "invalid_type"},
		{name: "unknown model", body: `{"model":"gpt-9-turbo","messages":[{"role":"user","content":"hi"}]}`, status: 404, code: "model_not_found"},
		{name: "completion model", body: `{"model":"gpt-3.5-turbo-instruct","messages":[{"role":"user","content":"hi"}]}`, status: 404, param: "model"},
		{name: "embedding model", body: `{"model":"text-embedding-3-small","messages":[{"role":"user","content":"hi"}]}`, status: 404, param: "model"},
		{name: "missing messages", body: `{"model":"gpt-4o"}`, status: 400, param: "messages", code: "missing_required_parameter"},
		{name: "empty messages", body: msgs(``), status: 400, param: "messages", code: "empty_array"},
		{name: "messages object", body: `{"model":"gpt-4o","messages":{}}`, status: 400, param: "messages", code: "invalid_type"},
		{name: "message string", body: msgs(`"hi"`), status: 400, param: "messages[0]", code: "invalid_type"},
		{name: "missing role", body: msgs(`{"content":"hi"}`), status: 400, param: "messages[0].role", code: "missing_required_parameter"},
		{name: "bad role", body: msgs(`{"role":"human","content":"hi"}`), status: 400, param: "messages[0].role", code: "invalid_value"},
		{name: "content integer", body: msgs(`{"role":"user","content":5}`), status: 400, param: "messages[0].content", code: "invalid_type"},
		{name: "user content null", body: msgs(`{"role":"user","content":null}`), status: 400, param: "messages[0].content", code: "invalid_type"},
		{name: "user content missing", body: msgs(`{"role":"user"}`), status: 400, param: "messages[0].content", code: "missing_required_parameter"},
		{name: "empty parts", body: msgs(`{"role":"user","content":[]}`), status: 400, param: "messages[0].content", code: "empty_array"},
		{name: "image in system", body: msgs(`{"role":"system","content":[{"type":"image_url","image_url":{"url":"https://x"}}]},{"role":"user","content":"hi"}`), status: 400, param: "messages[0].content[0].type", code: "invalid_value"},
		{name: "text part without text", body: msgs(`{"role":"user","content":[{"type":"text"}]}`), status: 400, param: "messages[0].content[0].text", code: "missing_required_parameter"},
		{name: "anthropic image part", body: msgs(`{"role":"user","content":[{"type":"image","source":{}}]}`), status: 400, param: "messages[0].content[0].type", code: "invalid_value"},
		{name: "cache_control on part", body: msgs(`{"role":"user","content":[{"type":"text","text":"x","cache_control":{"type":"ephemeral"}}]}`), status: 400, param: "messages[0].content[0].cache_control", code: "unknown_parameter"},
		{name: "bad image detail", body: msgs(`{"role":"user","content":[{"type":"image_url","image_url":{"url":"u","detail":"max"}}]}`), status: 400, param: "messages[0].content[0].image_url.detail", code: "invalid_value"},
		{name: "assistant empty", body: msgs(`{"role":"user","content":"hi"},{"role":"assistant"},{"role":"user","content":"hi"}`), status: 400, param: "messages[1].content", code: "missing_required_parameter"},
		{name: "tool_call_id on user", body: msgs(`{"role":"user","content":"hi","tool_call_id":"c"}`), status: 400, param: "messages[0].tool_call_id", code: "unknown_parameter"},
		{name: "reasoning_content on assistant", body: msgs(`{"role":"user","content":"hi"},{"role":"assistant","content":"x","reasoning_content":"y"},{"role":"user","content":"hi"}`), status: 400, param: "messages[1].reasoning_content", code: "unknown_parameter"},
		{name: "thinking_blocks on assistant", body: msgs(`{"role":"user","content":"hi"},{"role":"assistant","content":"x","thinking_blocks":[{"type":"thinking","thinking":"y","signature":"s"}]},{"role":"user","content":"hi"}`), status: 400, param: "messages[1].thinking_blocks", code: "unknown_parameter"},
		{name: "tool without tool_call_id", body: msgs(`{"role":"user","content":"hi"},{"role":"tool","content":"x"}`), status: 400, param: "messages[1].tool_call_id", code: "missing_required_parameter"},
		{name: "function without name", body: msgs(`{"role":"user","content":"hi"},{"role":"function","content":"x"}`), status: 400, param: "messages[1].name", code: "missing_required_parameter"},
		{name: "tool without call", body: msgs(`{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"c1","content":"x"}`), status: 400, param: "messages[1].role"},
		{name: "unanswered call", body: msgs(`{"role":"user","content":"hi"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"user","content":"hi"}`), status: 400, param: "messages"},
		{name: "wrong call id", body: msgs(`{"role":"user","content":"hi"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c2","content":"x"}`), status: 400, param: "messages[2].tool_call_id"},
		{name: "arguments object", body: msgs(`{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":{}}}]},{"role":"tool","tool_call_id":"c1","content":"x"}`), status: 400, param: "messages[1].tool_calls[0].function.arguments", code: "invalid_type"},
		{name: "empty tool_calls", body: msgs(`{"role":"user","content":"hi"},{"role":"assistant","content":"x","tool_calls":[]}`), status: 400, param: "messages[1].tool_calls", code: "empty_array"},
		{name: "temperature high", body: chatBody(`,"temperature":3`), status: 400, param: "temperature", code: "decimal_above_max_value"},
		{name: "temperature low", body: chatBody(`,"temperature":-0.1`), status: 400, param: "temperature", code: "decimal_below_min_value"},
		{name: "temperature string", body: chatBody(`,"temperature":"1"`), status: 400, param: "temperature", code: "invalid_type"},
		{name: "top_p", body: chatBody(`,"top_p":1.5`), status: 400, param: "top_p", code: "decimal_above_max_value"},
		{name: "presence_penalty", body: chatBody(`,"presence_penalty":-3`), status: 400, param: "presence_penalty", code: "decimal_below_min_value"},
		{name: "frequency_penalty", body: chatBody(`,"frequency_penalty":2.5`), status: 400, param: "frequency_penalty", code: "decimal_above_max_value"},
		{name: "n zero", body: chatBody(`,"n":0`), status: 400, param: "n", code: "integer_below_min_value"},
		{name: "n high", body: chatBody(`,"n":129`), status: 400, param: "n", code: "integer_above_max_value"},
		{name: "n decimal", body: chatBody(`,"n":1.5`), status: 400, param: "n", code: "invalid_type"},
		{name: "max_tokens zero", body: chatBody(`,"max_tokens":0`), status: 400, param: "max_tokens", code: "integer_below_min_value"},
		{name: "max_tokens string", body: chatBody(`,"max_tokens":"10"`), status: 400, param: "max_tokens", code: "invalid_type"},
		{name: "max_completion_tokens negative", body: chatBody(`,"max_completion_tokens":-1`), status: 400, param: "max_completion_tokens", code: "integer_below_min_value"},
		{name: "max_tokens above model", body: chatBody(`,"max_tokens":20000`), status: 400, param: "max_tokens", code: "invalid_value"},
		{name: "stop too many", body: chatBody(`,"stop":["a","b","c","d","e"]`), status: 400, param: "stop", code: "array_above_max_length"},
		{name: "stop number", body: chatBody(`,"stop":5`), status: 400, param: "stop", code: "invalid_type"},
		{name: "stop array of numbers", body: chatBody(`,"stop":[5]`), status: 400, param: "stop[0]", code: "invalid_type"},
		{name: "stream string", body: chatBody(`,"stream":"true"`), status: 400, param: "stream", code: "invalid_type"},
		{name: "stream_options without stream", body: chatBody(`,"stream_options":{"include_usage":true}`), status: 400, param: "stream_options"},
		{name: "stream_options with stream false", body: chatBody(`,"stream":false,"stream_options":{"include_usage":true}`), status: 400, param: "stream_options"},
		{name: "stream_options unknown", body: chatBody(`,"stream":true,"stream_options":{"usage":true}`), status: 400, param: "stream_options.usage", code: "unknown_parameter"},
		{name: "logprobs string", body: chatBody(`,"logprobs":"yes"`), status: 400, param: "logprobs", code: "invalid_type"},
		{name: "top_logprobs high", body: chatBody(`,"logprobs":true,"top_logprobs":21`), status: 400, param: "top_logprobs", code: "integer_above_max_value"},
		{name: "top_logprobs alone", body: chatBody(`,"top_logprobs":2`), status: 400, param: "top_logprobs"},
		{name: "logit_bias value", body: chatBody(`,"logit_bias":{"50256":200}`), status: 400, param: "logit_bias.50256", code: "decimal_above_max_value"},
		{name: "logit_bias key", body: chatBody(`,"logit_bias":{"abc":1}`), status: 400, param: "logit_bias", code: "invalid_value"},
		{name: "metadata value", body: chatBody(`,"metadata":{"k":1}`), status: 400, param: "metadata.k", code: "invalid_type"},
		{name: "safety_identifier long", body: chatBody(`,"safety_identifier":"` + strings.Repeat("x", 65) + `"`), status: 400, param: "safety_identifier", code: "string_above_max_length"},
		{name: "service_tier", body: chatBody(`,"service_tier":"gold"`), status: 400, param: "service_tier", code: "invalid_value"},
		{name: "response_format type", body: chatBody(`,"response_format":{"type":"xml"}`), status: 400, param: "response_format.type", code: "invalid_value"},
		{name: "json_object without json", body: chatBody(`,"response_format":{"type":"json_object"}`), status: 400, param: "messages"},
		{name: "json_schema missing", body: chatBody(`,"response_format":{"type":"json_schema"}`), status: 400, param: "response_format.json_schema", code: "missing_required_parameter"},
		{name: "reasoning max_tokens", body: `{"model":"o1","messages":[{"role":"user","content":"hi"}],"max_tokens":10}`, status: 400, param: "max_tokens", code: "unsupported_parameter"},
		{name: "reasoning temperature", body: `{"model":"gpt-5","messages":[{"role":"user","content":"hi"}],"temperature":0.2}`, status: 400, param: "temperature", code: "unsupported_value"},
		{name: "reasoning_effort on gpt-4o", body: chatBody(`,"reasoning_effort":"low"`), status: 400, param: "reasoning_effort", code: "unsupported_parameter"},
		{name: "context length", body: `{"model":"gpt-4","messages":[{"role":"user","content":"` + strings.Repeat("w ", 9000) + `"}]}`, status: 400, param: "messages", code: "context_length_exceeded"},
	})
}

func TestRejectsTools(t *testing.T) {
	s := start(t, Options{})
	fn := `{"name":"get_weather","parameters":{"type":"object"}}`
	checkRejects(t, s, []reject{
		{name: "empty tools", body: chatBody(`,"tools":[]`), status: 400, param: "tools", code: "empty_array"},
		{name: "tool missing type", body: chatBody(`,"tools":[{"function":{"name":"f"}}]`), status: 400, param: "tools[0].type", code: "missing_required_parameter"},
		{name: "tool bad type", body: chatBody(`,"tools":[{"type":"fn","function":{"name":"f"}}]`), status: 400, param: "tools[0].type", code: "invalid_value"},
		{name: "tool missing function", body: chatBody(`,"tools":[{"type":"function"}]`), status: 400, param: "tools[0].function", code: "missing_required_parameter"},
		{name: "tool name pattern", body: chatBody(`,"tools":[{"type":"function","function":{"name":"get weather"}}]`), status: 400, param: "tools[0].function.name", code: "invalid_value"},
		{name: "tool name long", body: chatBody(`,"tools":[{"type":"function","function":{"name":"` + strings.Repeat("f", 65) + `"}}]`), status: 400, param: "tools[0].function.name", code: "string_above_max_length"},
		{name: "tool parameters string", body: chatBody(`,"tools":[{"type":"function","function":{"name":"f","parameters":"{}"}}]`), status: 400, param: "tools[0].function.parameters", code: "invalid_type"},
		{name: "anthropic input_schema", body: chatBody(`,"tools":[{"type":"function","function":{"name":"f","input_schema":{}}}]`), status: 400, param: "tools[0].function.input_schema", code: "unknown_parameter"},
		{name: "tool_choice any", body: chatBody(`,"tools":[` + weatherTool + `],"tool_choice":"any"`), status: 400, param: "tool_choice", code: "invalid_value"},
		{name: "tool_choice unknown tool", body: chatBody(`,"tools":[` + weatherTool + `],"tool_choice":{"type":"function","function":{"name":"nope"}}`), status: 400, param: "tool_choice", code: "invalid_value"},
		{name: "tool_choice without tools", body: chatBody(`,"tool_choice":"auto"`), status: 400, param: "tool_choice"},
		{name: "parallel_tool_calls without tools", body: chatBody(`,"parallel_tool_calls":false`), status: 400, param: "parallel_tool_calls"},
		{name: "function missing name", body: chatBody(`,"functions":[{"parameters":{}}]`), status: 400, param: "functions[0].name", code: "missing_required_parameter"},
		{name: "function parameters array", body: chatBody(`,"functions":[{"name":"f","parameters":[]}]`), status: 400, param: "functions[0].parameters", code: "invalid_type"},
		{name: "empty functions", body: chatBody(`,"functions":[]`), status: 400, param: "functions", code: "empty_array"},
		{name: "function_call bad", body: chatBody(`,"functions":[` + fn + `],"function_call":"force"`), status: 400, param: "function_call", code: "invalid_value"},
		{name: "function_call unknown", body: chatBody(`,"functions":[` + fn + `],"function_call":{"name":"nope"}`), status: 400, param: "function_call", code: "invalid_value"},
		{name: "function_call without functions", body: chatBody(`,"function_call":"auto"`), status: 400, param: "function_call"},
		{name: "tools and functions", body: chatBody(`,"tools":[` + weatherTool + `],"functions":[` + fn + `]`), status: 400, param: "functions"},
	})

	tools := start(t, Options{ToolsOnly: true})
	checkRejects(t, tools, []reject{
		{name: "functions", body: chatBody(`,"functions":[` + fn + `]`), status: 400, param: "functions", code: "unsupported_parameter"},
		{name: "function message", body: msgs(`{"role":"user","content":"hi"},{"role":"function","name":"f","content":"x"}`), status: 400, param: "messages[1].role", code: "invalid_value"},
	})
	wantOK(t, post(t, tools, "/chat/completions", chatBody(`,"tools":[`+weatherTool+`]`)))
}

func TestAcceptsDocumentedFields(t *testing.T) {
	s := start(t, Options{})
	body := `{"model":"gpt-5","messages":[{"role":"developer","content":"be json"},{"role":"user","content":"hi","name":"al"}],
		"metadata":{"k":"v"},"store":true,"service_tier":"flex","modalities":["text"],
		"prediction":{"type":"content","content":"x"},"reasoning_effort":"low","verbosity":"low",
		"web_search_options":{},"prompt_cache_key":"k","safety_identifier":"s","seed":7,"user":"u",
		"logit_bias":{"50256":-100},"response_format":{"type":"json_object"},
		"tools":[` + weatherTool + `],"tool_choice":"none","parallel_tool_calls":false,
		"temperature":1,"top_p":1,"n":1,"max_completion_tokens":50,"stop":"\n","presence_penalty":null,
		"frequency_penalty":0,"logprobs":false,"stream":false,"stream_options":null}`
	got := wantOK(t, post(t, s, "/chat/completions", body))
	if got.Get("service_tier").Str != "flex" || got.Get("choices.0.finish_reason").Str != "stop" {
		t.Errorf("response %s", got.Raw)
	}
}

func TestRejectsCompletions(t *testing.T) {
	s := start(t, Options{})
	c := func(extra string) string { return `{"model":"gpt-3.5-turbo-instruct","prompt":"hi"` + extra + `}` }
	checkRejects(t, s, []reject{
		{name: "chat model", path: "/completions", body: `{"model":"gpt-4o","prompt":"hi"}`, status: 404, param: "model"},
		{name: "unknown model", path: "/completions", body: `{"model":"nope","prompt":"hi"}`, status: 404, code: "model_not_found"},
		{name: "missing prompt", path: "/completions", body: `{"model":"gpt-3.5-turbo-instruct"}`, status: 400, param: "prompt", code: "missing_required_parameter"},
		{name: "prompt object", path: "/completions", body: `{"model":"davinci-002","prompt":{}}`, status: 400, param: "prompt", code: "invalid_type"},
		{name: "prompt mixed", path: "/completions", body: `{"model":"davinci-002","prompt":["a",1]}`, status: 400, param: "prompt", code: "invalid_type"},
		{name: "prompt empty array", path: "/completions", body: `{"model":"davinci-002","prompt":[]}`, status: 400, param: "prompt", code: "invalid_type"},
		{name: "messages", path: "/completions", body: c(`,"messages":[]`), status: 400},
		{name: "logprobs bool", path: "/completions", body: c(`,"logprobs":true`), status: 400, param: "logprobs", code: "invalid_type"},
		{name: "logprobs high", path: "/completions", body: c(`,"logprobs":6`), status: 400, param: "logprobs", code: "integer_above_max_value"},
		{name: "echo string", path: "/completions", body: c(`,"echo":"yes"`), status: 400, param: "echo", code: "invalid_type"},
		{name: "best_of below n", path: "/completions", body: c(`,"n":3,"best_of":2`), status: 400, param: "best_of"},
		{name: "stream best_of", path: "/completions", body: c(`,"stream":true,"best_of":3`), status: 400, param: "best_of"},
		{name: "stream_options", path: "/completions", body: c(`,"stream_options":{"include_usage":true}`), status: 400, param: "stream_options"},
		{name: "max_tokens above model", path: "/completions", body: c(`,"max_tokens":5000`), status: 400, param: "max_tokens", code: "invalid_value"},
		{name: "max_tokens negative", path: "/completions", body: c(`,"max_tokens":-1`), status: 400, param: "max_tokens", code: "integer_below_min_value"},
		{name: "context", path: "/completions", body: `{"model":"gpt-3.5-turbo-instruct","prompt":"` + strings.Repeat("w ", 8180) + `"}`, status: 400, param: "prompt", code: "context_length_exceeded"},
	})
}

func TestRejectsEmbeddings(t *testing.T) {
	s := start(t, Options{})
	e := func(input string) string { return `{"model":"text-embedding-3-small","input":` + input + `}` }
	many := strings.TrimSuffix(strings.Repeat(`"x",`, 2049), ",")
	checkRejects(t, s, []reject{
		{name: "chat model", path: "/embeddings", body: `{"model":"gpt-4o","input":"x"}`, status: 404, param: "model"},
		{name: "missing input", path: "/embeddings", body: `{"model":"text-embedding-3-small"}`, status: 400, param: "input", code: "missing_required_parameter"},
		{name: "empty string", path: "/embeddings", body: e(`""`), status: 400},
		{name: "empty array", path: "/embeddings", body: e(`[]`), status: 400},
		{name: "empty string in array", path: "/embeddings", body: e(`["a",""]`), status: 400},
		{name: "mixed", path: "/embeddings", body: e(`["a",1]`), status: 400},
		{name: "empty token array", path: "/embeddings", body: e(`[[]]`), status: 400},
		{name: "negative token", path: "/embeddings", body: e(`[1,-2]`), status: 400},
		{name: "bool", path: "/embeddings", body: e(`true`), status: 400},
		{name: "too many", path: "/embeddings", body: e(`[` + many + `]`), status: 400},
		{name: "too long", path: "/embeddings", body: e(`"` + strings.Repeat("w ", 8200) + `"`), status: 400, param: "input"},
		{name: "encoding_format", path: "/embeddings", body: e(`"x","encoding_format":"int8"`), status: 400, param: "encoding_format", code: "invalid_value"},
		{name: "dimensions on ada", path: "/embeddings", body: `{"model":"text-embedding-ada-002","input":"x","dimensions":4}`, status: 400, param: "dimensions"},
		{name: "dimensions zero", path: "/embeddings", body: e(`"x","dimensions":0`), status: 400, param: "dimensions", code: "integer_below_min_value"},
		{name: "dimensions above native", path: "/embeddings", body: e(`"x","dimensions":1537`), status: 400, param: "dimensions", code: "integer_above_max_value"},
		{name: "unknown field", path: "/embeddings", body: e(`"x","truncate":"END"`), status: 400},
	})
}
