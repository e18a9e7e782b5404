package app_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	fakeopenai "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/openai"
)

const weatherTool = `{"name":"get_weather","description":"Weather of a city.","input_schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}`

// TestMessagesToolLoop runs a client tool loop through the Messages API
// on each kind of upstream: a streamed tool_use, whose ID and input the
// client sends back with its tool_result, which the strict fakes accept
// only when the upstream sees its own call again.
func TestMessagesToolLoop(t *testing.T) {
	_, g := upstreamGateway(t, fakeopenai.Options{}, nil)
	key, _ := g.newKey(t, "msgtools@example.com")
	for _, model := range []string{"gemini-2.5-flash", "llama-3.3-70b-instruct", "claude-sonnet-4-5"} {
		t.Run(model, func(t *testing.T) {
			user := `{"role":"user","content":"Weather in Oslo?"}`
			body := fmt.Sprintf(`{"model":%q,"max_tokens":256,"stream":true,"tools":[%s],"messages":[%s]}`, model, weatherTool, user)
			resp, _, raw := do(t, "POST", g.URL+"/v1/messages", anthropicHeaders(key), body)
			if resp.StatusCode != 200 {
				t.Fatalf("%d %s", resp.StatusCode, raw)
			}
			blocks, stop := assemble(t, readEvents(t, raw))
			if stop != "tool_use" || !strings.Contains(blocks, `"type":"tool_use"`) {
				t.Fatalf("stop %q, blocks %s", stop, blocks)
			}
			id := gjson.Get(blocks, `#(type=="tool_use").id`).Str
			next := fmt.Sprintf(`{"model":%q,"max_tokens":256,"tools":[%s],"messages":[%s,{"role":"assistant","content":%s},`+
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":%q,"content":"12 °C, rain"}]}]}`,
				model, weatherTool, user, blocks, id)
			resp, _, raw = do(t, "POST", g.URL+"/v1/messages", anthropicHeaders(key), next)
			if resp.StatusCode != 200 || gjson.Get(raw, "stop_reason").Str != "end_turn" || gjson.Get(raw, "content.0.type").Str != "text" {
				t.Errorf("continuation: %d %s", resp.StatusCode, raw)
			}
		})
	}
}

// assemble rebuilds a stream's content blocks as a client does, and
// returns them as JSON with the stop reason.
func assemble(t *testing.T, evs []sseEvent) (string, string) {
	t.Helper()
	var blocks []map[string]any
	var partial strings.Builder
	stop := ""
	for _, ev := range evs {
		switch ev.name {
		case "content_block_start":
			var b map[string]any
			json.Unmarshal([]byte(ev.data.Get("content_block").Raw), &b)
			if int(ev.data.Get("index").Int()) != len(blocks) {
				t.Errorf("block index %d, want %d", ev.data.Get("index").Int(), len(blocks))
			}
			blocks = append(blocks, b)
			partial.Reset()
		case "content_block_delta":
			b := blocks[len(blocks)-1]
			switch d := ev.data.Get("delta"); d.Get("type").Str {
			case "text_delta":
				b["text"] = b["text"].(string) + d.Get("text").Str
			case "input_json_delta":
				partial.WriteString(d.Get("partial_json").Str)
			}
		case "content_block_stop":
			if b := blocks[len(blocks)-1]; b["type"] == "tool_use" && partial.Len() > 0 {
				var in map[string]any
				if err := json.Unmarshal([]byte(partial.String()), &in); err != nil {
					t.Errorf("tool input %q: %v", partial.String(), err)
				}
				b["input"] = in
			}
		case "message_delta":
			stop = ev.data.Get("delta.stop_reason").Str
		}
	}
	b, _ := json.Marshal(blocks)
	return string(b), stop
}
