package openai

import (
	"encoding/json"
	"strconv"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// Legacy functions on hosts that only know tools: the request's functions,
// function_call and function-role history become tools, tool_choice and
// tool messages; answers come back as message.function_call with
// finish_reason "function_call", so the client cannot tell.

// usesFunctions reports whether a chat body uses the legacy fields.
func usesFunctions(body []byte) bool {
	if gjson.GetBytes(body, "functions").Exists() || gjson.GetBytes(body, "function_call").Exists() {
		return true
	}
	found := false
	gjson.GetBytes(body, "messages").ForEach(func(_, m gjson.Result) bool {
		found = m.Get("role").Str == "function" || m.Get("function_call").Exists()
		return !found
	})
	return found
}

// functionsToTools rewrites a chat body that uses legacy functions.
func functionsToTools(body []byte) ([]byte, error) {
	var err error
	if fs := gjson.GetBytes(body, "functions"); fs.IsArray() {
		var tools []json.RawMessage
		for _, f := range fs.Array() {
			tools = append(tools, json.RawMessage(`{"type":"function","function":`+f.Raw+`}`))
		}
		if body, err = sjson.SetBytes(body, "tools", tools); err != nil {
			return nil, err
		}
		body, _ = sjson.DeleteBytes(body, "functions")
		// One function call per answer, as with functions.
		if body, err = sjson.SetBytes(body, "parallel_tool_calls", false); err != nil {
			return nil, err
		}
	}
	if fc := gjson.GetBytes(body, "function_call"); fc.Exists() {
		choice := fc.Raw
		if fc.IsObject() {
			choice = `{"type":"function","function":{"name":` + strconv.Quote(fc.Get("name").Str) + `}}`
		}
		if body, err = sjson.SetRawBytes(body, "tool_choice", []byte(choice)); err != nil {
			return nil, err
		}
		body, _ = sjson.DeleteBytes(body, "function_call")
	}
	msgs, err := translateHistory(gjson.GetBytes(body, "messages"))
	if err != nil {
		return nil, err
	}
	return sjson.SetRawBytes(body, "messages", msgs)
}

// translateHistory turns assistant function_call messages into tool_calls
// with synthesized IDs, and function results into tool messages answering
// the latest call of that name.
func translateHistory(msgs gjson.Result) ([]byte, error) {
	out := make([]json.RawMessage, 0, len(msgs.Array()))
	lastID := map[string]string{} // function name → ID of its latest call
	for i, m := range msgs.Array() {
		raw := []byte(m.Raw)
		var err error
		switch {
		case m.Get("function_call").Exists():
			id := "call_fn" + strconv.Itoa(i)
			fc := m.Get("function_call")
			lastID[fc.Get("name").Str] = id
			call := `[{"id":"` + id + `","type":"function","function":{"name":` + strconv.Quote(fc.Get("name").Str) +
				`,"arguments":` + strconv.Quote(fc.Get("arguments").Str) + `}}]`
			if raw, err = sjson.SetRawBytes(raw, "tool_calls", []byte(call)); err != nil {
				return nil, err
			}
			raw, _ = sjson.DeleteBytes(raw, "function_call")
		case m.Get("role").Str == "function":
			name := m.Get("name").Str
			id, ok := lastID[name]
			if !ok {
				id = "call_fn_" + name
			}
			content := m.Get("content").Str
			raw = []byte(`{"role":"tool","tool_call_id":` + strconv.Quote(id) + `,"content":` + strconv.Quote(content) + `}`)
		}
		out = append(out, raw)
	}
	return json.Marshal(out)
}

// toolCallsToFunctionCall rewrites a chat completion's first tool call of
// each choice as a function_call.
func toolCallsToFunctionCall(b []byte) []byte {
	for i, ch := range gjson.GetBytes(b, "choices").Array() {
		tc := ch.Get("message.tool_calls.0.function")
		if !tc.Exists() {
			continue
		}
		p := "choices." + strconv.Itoa(i)
		fc := `{"name":` + strconv.Quote(tc.Get("name").Str) + `,"arguments":` + strconv.Quote(tc.Get("arguments").Str) + `}`
		b, _ = sjson.SetRawBytes(b, p+".message.function_call", []byte(fc))
		b, _ = sjson.DeleteBytes(b, p+".message.tool_calls")
		if ch.Get("finish_reason").Str == "tool_calls" || ch.Get("finish_reason").Str == "stop" {
			b, _ = sjson.SetBytes(b, p+".finish_reason", "function_call")
		}
	}
	return b
}

// toolCallDeltasToFunctionCall does the same for a stream chunk: the first
// call's fragments become function_call fragments. sawCall remembers, across
// chunks, that a call went by, so that a host ending the call with "stop"
// in a later chunk still gives the client "function_call".
func toolCallDeltasToFunctionCall(b []byte, sawCall *bool) []byte {
	for i, ch := range gjson.GetBytes(b, "choices").Array() {
		p := "choices." + strconv.Itoa(i)
		if tcs := ch.Get("delta.tool_calls"); tcs.Exists() {
			var fc json.RawMessage
			for _, tc := range tcs.Array() {
				if tc.Get("index").Int() != 0 {
					continue
				}
				f := map[string]string{"arguments": tc.Get("function.arguments").Str}
				if n := tc.Get("function.name"); n.Exists() {
					f["name"] = n.Str
				}
				fc, _ = json.Marshal(f)
			}
			b, _ = sjson.DeleteBytes(b, p+".delta.tool_calls")
			if fc != nil {
				*sawCall = true
				b, _ = sjson.SetRawBytes(b, p+".delta.function_call", fc)
			}
		}
		if fr := ch.Get("finish_reason").Str; fr == "tool_calls" || fr == "stop" && *sawCall {
			b, _ = sjson.SetBytes(b, p+".finish_reason", "function_call")
		}
	}
	return b
}
