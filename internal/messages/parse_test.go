package messages

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/fixture"
)

// with returns a minimal valid request with fields replaced (raw JSON
// values) or removed (value "").
func with(fields ...string) string {
	base := [][2]string{{"model", `"claude-sonnet-4-5"`}, {"max_tokens", `1024`},
		{"messages", `[{"role":"user","content":"Hi"}]`}}
	for i := 0; i+1 < len(fields); i += 2 {
		found := false
		for j := range base {
			if base[j][0] == fields[i] {
				base[j][1], found = fields[i+1], true
			}
		}
		if !found {
			base = append(base, [2]string{fields[i], fields[i+1]})
		}
	}
	var parts []string
	for _, kv := range base {
		if kv[1] != "" {
			parts = append(parts, `"`+kv[0]+`":`+kv[1])
		}
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func msgs(content string) string { return `[{"role":"user","content":` + content + `}]` }

func TestParseRefuses(t *testing.T) {
	tests := []struct {
		name, body, param, msg string
	}{
		{"not json", `{"model":`, "", "not valid JSON"},
		{"array", `[]`, "", "JSON object"},
		{"no model", with("model", ""), "model", "Field required"},
		{"model number", with("model", "3"), "model", "valid string"},
		{"no max_tokens", with("max_tokens", ""), "max_tokens", "Field required"},
		{"negative max_tokens", with("max_tokens", "-1"), "max_tokens", "greater than or equal to 0"},
		{"fractional max_tokens", with("max_tokens", "1.5"), "max_tokens", "valid integer"},
		{"no messages", with("messages", ""), "messages", "Field required"},
		{"messages object", with("messages", `{}`), "messages", "valid list"},
		{"bad role", with("messages", `[{"role":"tool","content":"x"}]`), "messages.0.role", "'user' or 'assistant'"},
		{"no role", with("messages", `[{"content":"x"}]`), "messages.0.role", "Field required"},
		{"no content", with("messages", `[{"role":"user"}]`), "messages.0.content", "Field required"},
		{"empty text", with("messages", msgs(`[{"type":"text","text":""}]`)), "messages.0.content.0.text", "non-empty"},
		{"unknown block", with("messages", msgs(`[{"type":"video"}]`)), "messages.0.content.0.type", "'video'"},
		{"block without type", with("messages", msgs(`[{"text":"x"}]`)), "messages.0.content.0.type", "Field required"},
		{"server block", with("messages", `[{"role":"user","content":"x"},{"role":"assistant","content":[{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{}}]}]`),
			"messages.1.content.0.type", "`server_tool_use`"},
		{"search result", with("messages", msgs(`[{"type":"search_result","source":"x","title":"t","content":[]}]`)), "messages.0.content.0.type", "server tools"},
		{"tool_use in user turn", with("messages", msgs(`[{"type":"tool_use","id":"t","name":"n","input":{}}]`)), "messages.0.content.0.type", "assistant messages"},
		{"image in assistant turn", with("messages", `[{"role":"assistant","content":[{"type":"image","source":{"type":"url","url":"https://x/y.png"}}]}]`), "messages.0.content.0.type", "user messages"},
		{"tool_use input not object", with("messages", `[{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"n","input":"x"}]}]`), "messages.0.content.0.input", "valid dictionary"},
		{"tool_use without id", with("messages", `[{"role":"assistant","content":[{"type":"tool_use","name":"n","input":{}}]}]`), "messages.0.content.0.id", "Field required"},
		{"thinking without signature", with("messages", `[{"role":"assistant","content":[{"type":"thinking","thinking":"x"}]}]`), "messages.0.content.0.signature", "Field required"},
		{"redacted without data", with("messages", `[{"role":"assistant","content":[{"type":"redacted_thinking"}]}]`), "messages.0.content.0.data", "Field required"},
		{"tool_result without id", with("messages", msgs(`[{"type":"tool_result","content":"x"}]`)), "messages.0.content.0.tool_use_id", "Field required"},
		{"tool_result is_error string", with("messages", msgs(`[{"type":"tool_result","tool_use_id":"t","is_error":"yes"}]`)), "messages.0.content.0.is_error", "boolean"},
		{"tool_result bad inner", with("messages", msgs(`[{"type":"tool_result","tool_use_id":"t","content":[{"type":"tool_reference","tool_name":"x"}]}]`)), "messages.0.content.0.content.0.type", "server tools"},
		{"image bad media", with("messages", msgs(`[{"type":"image","source":{"type":"base64","media_type":"image/bmp","data":"AA"}}]`)), "messages.0.content.0.source.media_type", "image/jpeg"},
		{"image file source", with("messages", msgs(`[{"type":"image","source":{"type":"file","file_id":"file_1"}}]`)), "messages.0.content.0.source.type", "Files API"},
		{"image no source", with("messages", msgs(`[{"type":"image"}]`)), "messages.0.content.0.source", "Field required"},
		{"document url", with("messages", msgs(`[{"type":"document","source":{"type":"url","url":"https://x/a.pdf"}}]`)), "messages.0.content.0.source.type", "url sources"},
		{"document not pdf", with("messages", msgs(`[{"type":"document","source":{"type":"base64","media_type":"text/html","data":"AA"}}]`)), "messages.0.content.0.source.media_type", "application/pdf"},
		{"system number", with("system", "1"), "system", "valid string"},
		{"system bad block", with("system", `[{"type":"image"}]`), "system.0.type", "'text'"},
		{"server tool", with("tools", `[{"type":"web_search_20250305","name":"web_search"}]`), "tools.0.type", "web_search_20250305"},
		{"tool without schema", with("tools", `[{"name":"f"}]`), "tools.0.input_schema", "Field required"},
		{"tool without name", with("tools", `[{"input_schema":{"type":"object"}}]`), "tools.0.name", "Field required"},
		{"tool strict string", with("tools", `[{"name":"f","input_schema":{},"strict":"yes"}]`), "tools.0.strict", "boolean"},
		{"tool_choice string", with("tool_choice", `"auto"`), "tool_choice", "valid dictionary"},
		{"tool_choice bad type", with("tool_choice", `{"type":"required"}`), "tool_choice.type", "'auto'"},
		{"tool_choice tool no name", with("tool_choice", `{"type":"tool"}`), "tool_choice.name", "Field required"},
		{"temperature high", with("temperature", "1.5"), "temperature", "between 0 and 1"},
		{"top_p string", with("top_p", `"x"`), "top_p", "valid number"},
		{"top_k float", with("top_k", "1.5"), "top_k", "valid integer"},
		{"stop_sequences string", with("stop_sequences", `"END"`), "stop_sequences", "valid list"},
		{"stop_sequences number", with("stop_sequences", `[1]`), "stop_sequences.0", "valid string"},
		{"stream string", with("stream", `"true"`), "stream", "boolean"},
		{"metadata string", with("metadata", `"u"`), "metadata", "valid dictionary"},
		{"user_id number", with("metadata", `{"user_id":5}`), "metadata.user_id", "valid string"},
		{"service tier", with("service_tier", `"priority"`), "service_tier", "'auto' or 'standard_only'"},
		{"thinking small budget", with("thinking", `{"type":"enabled","budget_tokens":512}`), "thinking.budget_tokens", "1024"},
		{"thinking no budget", with("thinking", `{"type":"enabled"}`), "thinking.budget_tokens", "Field required"},
		{"thinking budget over max", with("thinking", `{"type":"enabled","budget_tokens":2048}`, "max_tokens", "2048"), "max_tokens", "greater than"},
		{"thinking bad type", with("thinking", `{"type":"on"}`), "thinking.type", "'enabled'"},
		{"effort bad", with("output_config", `{"effort":"extreme"}`), "output_config.effort", "'low'"},
		{"format bad type", with("output_config", `{"format":{"type":"json_object"}}`), "output_config.format.type", "json_schema"},
		{"format no schema", with("output_format", `{"type":"json_schema"}`), "output_format.schema", "Field required"},
		{"output_config string", with("output_config", `"x"`), "output_config", "valid dictionary"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.body))
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Parse(%s) = %v, want an *Error", tt.body, err)
			}
			if e.Param != tt.param || !strings.Contains(e.Message, tt.msg) {
				t.Errorf("Parse(%s) = param %q message %q, want %q containing %q", tt.body, e.Param, e.Message, tt.param, tt.msg)
			}
		})
	}
}

// TestParseTranslates checks the mappings the fixtures do not show.
func TestParseTranslates(t *testing.T) {
	tests := []struct {
		name, body, field, want string
	}{
		{"max_tokens 0 asks for 1", with("max_tokens", "0"), "max_tokens", `1`},
		{"any is required", with("tools", `[{"name":"f","input_schema":{"type":"object"},"strict":true}]`, "tool_choice", `{"type":"any","disable_parallel_tool_use":true}`), "tool_choice", `"required"`},
		{"strict kept", with("tools", `[{"name":"f","input_schema":{"type":"object"},"strict":true}]`), "tools.0.function.strict", `true`},
		{"no parallel", with("tools", `[{"name":"f","input_schema":{"type":"object"}}]`, "tool_choice", `{"type":"auto","disable_parallel_tool_use":true}`), "parallel_tool_calls", `false`},
		{"named tool", with("tools", `[{"name":"f","input_schema":{"type":"object"}}]`, "tool_choice", `{"type":"tool","name":"f"}`), "tool_choice", `{"type":"function","function":{"name":"f"}}`},
		{"none", with("tool_choice", `{"type":"none"}`), "tool_choice", `"none"`},
		{"top_k dropped", with("top_k", "5", "top_p", "0.9"), "@this", `{"model":"claude-sonnet-4-5","messages":[{"role":"user","content":"Hi"}],"max_tokens":1024,"top_p":0.9}`},
		{"stop", with("stop_sequences", `["END","STOP"]`), "stop", `["END","STOP"]`},
		{"budget low", with("max_tokens", "4096", "thinking", `{"type":"enabled","budget_tokens":1024}`), "reasoning_effort", `"low"`},
		{"budget high", with("max_tokens", "32000", "thinking", `{"type":"enabled","budget_tokens":16000}`), "reasoning_effort", `"high"`},
		{"adaptive default", with("thinking", `{"type":"adaptive"}`), "reasoning_effort", `"medium"`},
		{"adaptive max", with("thinking", `{"type":"adaptive"}`, "output_config", `{"effort":"max"}`), "reasoning_effort", `"max"`},
		{"disabled", with("thinking", `{"type":"disabled"}`, "output_config", `{"effort":"high"}`), "reasoning_effort", ``},
		{"effort alone", with("output_config", `{"effort":"low"}`), "reasoning_effort", `"low"`},
		{"image base64", with("messages", msgs(`[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBO"}},{"type":"text","text":"What?"}]`)),
			"messages.0.content", `[{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBO"}},{"type":"text","text":"What?"}]`},
		{"pdf", with("messages", msgs(`[{"type":"document","title":"a.pdf","source":{"type":"base64","media_type":"application/pdf","data":"JVBE"}}]`)),
			"messages.0.content", `[{"type":"file","file":{"filename":"a.pdf","file_data":"data:application/pdf;base64,JVBE"}}]`},
		{"text document", with("messages", msgs(`[{"type":"document","source":{"type":"text","media_type":"text/plain","data":"Notes"}}]`)), "messages.0.content", `"Notes"`},
		{"tool result image leads the user message", with("messages", msgs(`[{"type":"tool_result","tool_use_id":"toolu_gw_Y2FsbDow","content":[{"type":"text","text":"see"},{"type":"image","source":{"type":"url","url":"https://x/i.png"}}]},{"type":"text","text":"Go on"}]`)),
			"messages", `[{"role":"tool","content":"see","tool_call_id":"call:0"},{"role":"user","content":[{"type":"image_url","image_url":{"url":"https://x/i.png"}},{"type":"text","text":"Go on"}]}]`},
		{"mid-conversation system", with("messages", `[{"role":"user","content":"a"},{"role":"system","content":[{"type":"text","text":"Be brief."}]}]`), "messages.1", `{"role":"system","content":"Be brief."}`},
		{"thinking only assistant", with("messages", `[{"role":"assistant","content":[{"type":"redacted_thinking","data":"Em"}]}]`), "messages.0", `{"role":"assistant","content":"","thinking_blocks":[{"type":"redacted_thinking","data":"Em"}]}`},
		{"null fields absent", with("system", "null", "tools", "null", "thinking", "null", "temperature", "null", "stream", "null"), "@this", `{"model":"claude-sonnet-4-5","messages":[{"role":"user","content":"Hi"}],"max_tokens":1024}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Parse([]byte(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			b, err := r.Chat()
			if err != nil {
				t.Fatal(err)
			}
			if got := gjson.GetBytes(b, tt.field).Raw; got != tt.want {
				t.Errorf("%s = %s, want %s\n(body %s)", tt.field, got, tt.want, b)
			}
		})
	}
}

func TestIDsRoundTrip(t *testing.T) {
	for _, id := range []string{"toolu_01Aq8Zk2Wm5Rt9Lp3Xv7Cn4B", "call_abc-DEF", "functions.get_weather:0", "call 1", "", "toolu_gw_abc", "é"} {
		out := outID(id)
		if !validID(out) {
			t.Errorf("outID(%q) = %q, not a valid tool_use ID", id, out)
		}
		if back := inID(out); back != id {
			t.Errorf("inID(outID(%q)) = %q", id, back)
		}
	}
	if got := inID("toolu_gw_!!"); got != "toolu_gw_!!" {
		t.Errorf("inID of an undecodable ID = %q, want it unchanged", got)
	}
}

func TestCountTokens(t *testing.T) {
	n, err := CountTokens(readFile(t, "testdata/anthropic/count_tokens_request.json"))
	if err != nil {
		t.Fatal(err)
	}
	// The fixture's answer is Anthropic's own count; the estimate must be
	// near it, not equal.
	want := gjson.GetBytes(readFile(t, "testdata/anthropic/count_tokens_response.json"), "input_tokens").Int()
	if n < 50 || int64(n) > want*2 {
		t.Errorf("CountTokens = %d, Anthropic counted %d", n, want)
	}
	if _, err := CountTokens([]byte(`{"model":"m"}`)); err == nil || err.Error() != "messages: Field required" {
		t.Errorf("CountTokens without messages: %v", err)
	}
	r, err := ParseCount([]byte(`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"hi"},{"type":"image","source":{"type":"url","url":"https://x"}}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := r.InputTokens(); got < mediaTokens {
		t.Errorf("an image counts %d tokens, want at least %d", got, mediaTokens)
	}
}

func FuzzParse(f *testing.F) {
	for _, p := range fixture.Glob(f, "testdata/anthropic/*.json") {
		f.Add(readFile(f, p))
	}
	f.Add([]byte(with("messages", msgs(`[{"type":"tool_result","tool_use_id":"t","content":[{"type":"document","source":{"type":"content","content":[{"type":"image","source":{"type":"url","url":"u"}}]}}]}]`))))
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, parse := range []func([]byte) (*Request, error){Parse, ParseCount} {
			r, err := parse(body)
			if err != nil {
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("error %v is not an *Error", err)
				}
				continue
			}
			b, err := r.Chat()
			if err != nil || !gjson.ValidBytes(b) {
				t.Fatalf("Chat = %s, %v", b, err)
			}
			r.InputTokens()
		}
	})
}

func TestErrorText(t *testing.T) {
	err := errorf("max_tokens", "Field required")
	if diff := cmp.Diff("max_tokens: Field required", err.Error()); diff != "" {
		t.Error(diff)
	}
}
