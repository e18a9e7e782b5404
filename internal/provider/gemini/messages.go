package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/tidwall/gjson"
)

// turnKind is what a Gemini content holds; it decides what may merge.
type turnKind uint8

const (
	turnPlain     turnKind = iota // text and media
	turnCalls                     // a model turn with functionCall parts
	turnResponses                 // a user turn of functionResponse parts only
)

// pendingCall is a call of the last assistant message, waiting for its
// result.
type pendingCall struct {
	id, name string
	legacy   bool            // a function_call, answered by a function message
	result   json.RawMessage // nil until answered
}

// history turns OpenAI messages into Gemini contents.
type history struct {
	model   string // the upstream model: Gemini 3 needs signatures
	system  []part
	turns   []content
	kinds   []turnKind
	pending []pendingCall // calls of the assistant message at pendingAt
	at      int           // index of that message
}

// functionName is what Gemini accepts as a function name.
var functionName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$`)

func msgParam(i int, rest string) string { return fmt.Sprintf("messages[%d]%s", i, rest) }

// convert reads the messages array.
func (h *history) convert(msgs gjson.Result) error {
	if !msgs.IsArray() || len(msgs.Array()) == 0 {
		return refuse(codeInvalid, "messages", "Expected a non-empty array of messages.")
	}
	for i, m := range msgs.Array() {
		if !m.IsObject() {
			return refuse(codeInvalid, msgParam(i, ""), "Expected a message object.")
		}
		role := m.Get("role").String()
		if role != "tool" && role != "function" {
			if err := h.answerCalls(); err != nil {
				return err
			}
		}
		if err := h.message(i, role, m); err != nil {
			return err
		}
	}
	if err := h.answerCalls(); err != nil {
		return err
	}
	return h.finish()
}

func (h *history) message(i int, role string, m gjson.Result) error {
	switch role {
	case "system", "developer":
		parts, err := textParts(msgParam(i, ".content"), m.Get("content"), false)
		h.system = append(h.system, parts...)
		return err
	case "user":
		parts, err := userParts(i, m.Get("content"))
		if err == nil && len(parts) > 0 {
			h.add("user", parts, turnPlain)
		}
		return err
	case "assistant":
		return h.assistant(i, m)
	case "tool":
		return h.toolResult(i, m)
	case "function":
		return h.functionResult(i, m)
	}
	return refuse(codeInvalid, msgParam(i, ".role"), "Expected system, developer, user, assistant, tool or function, got %s.", m.Get("role").Raw)
}

// add appends a turn, merging it into the previous one of the same role:
// Gemini wants user and model turns to alternate. A function-response
// turn is never merged with text, either way.
func (h *history) add(role string, parts []part, kind turnKind) {
	if n := len(h.turns); n > 0 && h.turns[n-1].Role == role && kind != turnResponses && h.kinds[n-1] != turnResponses {
		h.turns[n-1].Parts = append(h.turns[n-1].Parts, parts...)
		h.kinds[n-1] = max(h.kinds[n-1], kind)
		return
	}
	h.turns = append(h.turns, content{Role: role, Parts: parts})
	h.kinds = append(h.kinds, kind)
}

// assistant turns an assistant message into a model turn: its text, then
// one functionCall part per tool call.
func (h *history) assistant(i int, m gjson.Result) error {
	parts, err := textParts(msgParam(i, ".content"), m.Get("content"), true)
	if err != nil {
		return err
	}
	if tc := m.Get("tool_calls"); present(tc) {
		if !tc.IsArray() {
			return refuse(codeInvalid, msgParam(i, ".tool_calls"), "Expected an array of tool calls.")
		}
		for j, c := range tc.Array() {
			p, err := h.toolCall(msgParam(i, fmt.Sprintf(".tool_calls[%d]", j)), c)
			if err != nil {
				return err
			}
			parts = append(parts, p)
		}
	} else if fc := m.Get("function_call"); present(fc) {
		p, err := h.legacyCall(msgParam(i, ".function_call"), fc)
		if err != nil {
			return err
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return nil // an empty assistant message says nothing
	}
	kind := turnPlain
	if len(h.pending) > 0 {
		kind, h.at = turnCalls, i
	}
	h.add("model", parts, kind)
	return nil
}

// toolCall is one entry of tool_calls; its ID may carry the call's
// thought signature.
func (h *history) toolCall(param string, c gjson.Result) (part, error) {
	id := c.Get("id")
	if id.Type != gjson.String || id.Str == "" {
		return part{}, refuse(codeInvalid, param+".id", "Expected the tool call's ID.")
	}
	if t := c.Get("type"); present(t) && t.Str != "function" {
		return part{}, refuse(codeUnsupported, param+".type", "Gemini has only function tools, got %s.", t.Raw)
	}
	for _, p := range h.pending {
		if p.id == id.Str {
			return part{}, refuse(codeInvalid, param+".id", "Duplicate tool call ID %q.", id.Str)
		}
	}
	fc, err := callPart(param+".function", c.Get("function"))
	if err != nil {
		return part{}, err
	}
	h.pending = append(h.pending, pendingCall{id: id.Str, name: fc.Name})
	return part{FunctionCall: fc, ThoughtSignature: signatureOf(id.Str)}, nil
}

// legacyCall is a deprecated function_call; it has no ID to carry a
// signature.
func (h *history) legacyCall(param string, fc gjson.Result) (part, error) {
	call, err := callPart(param, fc)
	if err != nil {
		return part{}, err
	}
	h.pending = append(h.pending, pendingCall{name: call.Name, legacy: true})
	return part{FunctionCall: call}, nil
}

// callPart reads {name, arguments}: arguments must be a JSON object
// (Gemini's args is a Struct); "" means no arguments.
func callPart(param string, f gjson.Result) (*functionCall, error) {
	name := f.Get("name")
	if name.Type != gjson.String || !functionName.MatchString(name.Str) {
		return nil, refuse(codeInvalid, param+".name", "Gemini function names start with a letter or underscore and hold up to 64 letters, digits, underscores, dots, colons or dashes, got %s.", name.Raw)
	}
	args := f.Get("arguments")
	if args.Type != gjson.String {
		return nil, refuse(codeInvalid, param+".arguments", "Expected a string of JSON.")
	}
	raw := json.RawMessage("{}")
	if s := strings.TrimSpace(args.Str); s != "" {
		var ok bool
		if raw, ok = compact(s); !ok || raw[0] != '{' {
			return nil, refuse(codeInvalid, param+".arguments", "Gemini needs the arguments of a function call to be a JSON object.")
		}
	}
	return &functionCall{Name: name.Str, Args: raw}, nil
}

// toolResult records a tool message's content as the result of the call
// it names.
func (h *history) toolResult(i int, m gjson.Result) error {
	id := m.Get("tool_call_id").String()
	for k := range h.pending {
		p := &h.pending[k]
		if p.legacy || p.id != id {
			continue
		}
		if p.result != nil {
			return refuse(codeInvalid, msgParam(i, ".tool_call_id"), "Tool call %q is answered twice.", id)
		}
		return setResult(p, msgParam(i, ".content"), m.Get("content"))
	}
	return refuse(codeInvalid, msgParam(i, ".tool_call_id"),
		"Messages with role 'tool' must answer a tool call of the assistant message right before them; no call has ID %q.", id)
}

// functionResult answers the first unanswered call of the same name.
func (h *history) functionResult(i int, m gjson.Result) error {
	name := m.Get("name").String()
	for k := range h.pending {
		if p := &h.pending[k]; p.name == name && p.result == nil {
			return setResult(p, msgParam(i, ".content"), m.Get("content"))
		}
	}
	return refuse(codeInvalid, msgParam(i, ".name"),
		"Messages with role 'function' must answer a function call of the assistant message right before them; none is named %q.", name)
}

// setResult stores {"result": content}, content parsed as JSON when it is
// JSON, else as a string.
func setResult(p *pendingCall, param string, c gjson.Result) error {
	text, err := plainText(param, c)
	if err != nil {
		return err
	}
	val, ok := compact(strings.TrimSpace(text))
	if !ok {
		val = gjson.AppendJSONString(nil, text)
	}
	p.result = append(append(json.RawMessage(`{"result":`), val...), '}')
	return nil
}

// answerCalls closes the pending calls with one user turn holding every
// result, in the order of the calls.
func (h *history) answerCalls() error {
	if len(h.pending) == 0 {
		return nil
	}
	parts := make([]part, len(h.pending))
	for k, p := range h.pending {
		if p.result == nil {
			return refuse(codeInvalid, msgParam(h.at, ""),
				"An assistant message with tool calls must be followed by messages answering each call; %s has no answer.", callName(p))
		}
		parts[k] = part{FunctionResponse: &functionResponse{Name: p.name, Response: p.result}}
	}
	h.add("user", parts, turnResponses)
	h.pending = nil
	return nil
}

func callName(p pendingCall) string {
	if p.legacy {
		return fmt.Sprintf("function_call %q", p.name)
	}
	return fmt.Sprintf("tool call %q", p.id)
}

// finish checks the shape Gemini needs and fills in signatures Gemini 3
// would refuse to do without.
func (h *history) finish() error {
	if len(h.turns) == 0 {
		if len(h.system) == 0 {
			return refuse(codeInvalid, "messages", "Every message is empty: there is nothing to send.")
		}
		// Only instructions: they become the user turn.
		h.turns, h.kinds, h.system = []content{{Role: "user", Parts: h.system}}, []turnKind{turnPlain}, nil
	}
	if h.kinds[0] == turnCalls {
		return refuse(codeInvalid, "messages", "Gemini needs a user message before the first assistant message with tool calls.")
	}
	if !needsSignature(h.model) {
		return nil
	}
	for t, turn := range h.turns {
		if h.kinds[t] != turnCalls {
			continue
		}
		for k := range turn.Parts {
			if p := &turn.Parts[k]; p.FunctionCall != nil {
				if p.ThoughtSignature == "" {
					p.ThoughtSignature = skipSignature
				}
				break // only the first call of a turn is checked
			}
		}
	}
	return nil
}

// compact returns s without insignificant space, and whether s is one
// valid JSON value.
func compact(s string) (json.RawMessage, bool) {
	if s == "" || !gjson.Valid(s) {
		return nil, false
	}
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		return nil, false
	}
	return b.Bytes(), true
}

// present reports a field that is set and not null.
func present(r gjson.Result) bool { return r.Exists() && r.Type != gjson.Null }
