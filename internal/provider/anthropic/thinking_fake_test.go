package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/provider"
	fakeanthropic "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/anthropic"
)

// thinkingAsk asks with reasoning and a tool the fake will call.
const thinkingAsk = `{"reasoning_effort":"low","tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}}],"messages":[{"role":"user","content":"Umbrella in Oslo?"}]`

// thinkingRequest is a chat request on a model thinking with a budget.
func thinkingRequest(body string, stream bool) *provider.Request {
	r := chatRequest(body, stream)
	r.Reasoning = catalog.ReasoningBudget
	return r
}

// echo is the next turn of a tool loop: the assistant message as the
// client got it (without thinking_blocks when drop), and the tool result.
func echo(t *testing.T, assistant string, drop bool) string {
	t.Helper()
	if drop {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(assistant), &m); err != nil {
			t.Fatal(err)
		}
		delete(m, "thinking_blocks")
		b, _ := json.Marshal(m)
		assistant = string(b)
	}
	id := gjson.Get(assistant, "tool_calls.0.id").Str
	return strings.TrimSuffix(thinkingAsk, "]") + `,` + assistant + `,{"role":"tool","tool_call_id":"` + id + `","content":"rain, 9 C"}]}`
}

// A tool loop with thinking through the strict fake: the answer carries
// the signed thinking block, the fake takes it back as the client echoes
// it, and refuses the turn without it.
func TestThinkingToolLoop(t *testing.T) {
	_, c := newFake(t, fakeanthropic.Options{})
	ctx := context.Background()
	resp, err := c.Chat(ctx, thinkingRequest(thinkingAsk+`}`, false))
	if err != nil {
		t.Fatal(describe(err))
	}
	msg := gjson.GetBytes(resp.Body, "choices.0.message")
	text := msg.Get("reasoning_content").Str
	if text == "" || msg.Get("thinking_blocks.0.thinking").Str != text || msg.Get("thinking_blocks.0.signature").Str != fakeanthropic.Signature(text) ||
		len(msg.Get("tool_calls").Array()) != 1 || resp.Usage.ReasoningTokens == 0 ||
		gjson.GetBytes(resp.Body, "usage.completion_tokens_details.reasoning_tokens").Int() != int64(resp.Usage.ReasoningTokens) {
		t.Fatalf("answer %s, usage %+v", resp.Body, resp.Usage)
	}
	next, err := c.Chat(ctx, thinkingRequest(echo(t, msg.Raw, false), false))
	if err != nil {
		t.Fatalf("the echoed turn: %s", describe(err))
	}
	if got := gjson.GetBytes(next.Body, "choices.0.finish_reason").Str; got != "stop" {
		t.Errorf("final answer %s", next.Body)
	}
	_, err = c.Chat(ctx, thinkingRequest(echo(t, msg.Raw, true), false))
	var pe *provider.Error
	if !errors.As(err, &pe) || pe.Kind != provider.KindBadRequest || !strings.Contains(pe.Message, "must start with a thinking block") {
		t.Errorf("without thinking_blocks: %v, want the fake's 400", err)
	}
}

// The same loop streamed: the client rebuilds the assistant message from
// reasoning_content, thinking_blocks and tool_calls deltas.
func TestThinkingToolLoopStream(t *testing.T) {
	_, c := newFake(t, fakeanthropic.Options{})
	ctx := context.Background()
	st, err := c.ChatStream(ctx, thinkingRequest(thinkingAsk+`}`, true))
	if err != nil {
		t.Fatal(describe(err))
	}
	defer st.Close()
	_, chunks, err := drain(t, st, true)
	if err != nil {
		t.Fatal(describe(err))
	}
	var reasoning, args string
	var blocks []json.RawMessage
	var id, name string
	for _, ch := range chunks {
		d := gjson.Get(ch, "choices.0.delta")
		reasoning += d.Get("reasoning_content").Str
		for _, b := range d.Get("thinking_blocks").Array() {
			blocks = append(blocks, json.RawMessage(b.Raw))
		}
		id += d.Get("tool_calls.0.id").Str
		name += d.Get("tool_calls.0.function.name").Str
		args += d.Get("tool_calls.0.function.arguments").Str
	}
	if len(blocks) != 1 || gjson.GetBytes(blocks[0], "thinking").Str != reasoning || st.Usage().ReasoningTokens == 0 {
		t.Fatalf("reasoning %q, blocks %s, usage %+v", reasoning, blocks, st.Usage())
	}
	tb, _ := json.Marshal(blocks)
	call, _ := json.Marshal(map[string]any{"role": "assistant", "content": nil, "reasoning_content": reasoning, "thinking_blocks": json.RawMessage(tb),
		"tool_calls": []any{map[string]any{"id": id, "type": "function", "function": map[string]string{"name": name, "arguments": args}}}})
	if _, err := c.Chat(ctx, thinkingRequest(echo(t, string(call), false), false)); err != nil {
		t.Errorf("the echoed turn: %s", describe(err))
	}
}

// Native structured outputs: the fake answers with JSON for the schema.
func TestStructuredOutputFake(t *testing.T) {
	_, c := newFake(t, fakeanthropic.Options{})
	r := chatRequest(`{"response_format":{"type":"json_schema","json_schema":{"name":"place","strict":true,"schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}}},`+hello+`}`, false)
	r.StructuredOutputs = true
	resp, err := c.Chat(context.Background(), r)
	if err != nil {
		t.Fatal(describe(err))
	}
	if got := gjson.GetBytes(resp.Body, "choices.0.message.content").Str; got != `{"city":"Paris"}` {
		t.Errorf("content %q", got)
	}
}
