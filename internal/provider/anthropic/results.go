package anthropic

import (
	"github.com/tidwall/gjson"
)

// Tool and function messages become tool_result blocks of the user turn
// after the assistant turn that made the calls; in that turn they go
// before any text, whatever the order the client sent them in.

// addToolResult answers the call of the latest assistant turn whose id is
// tool_call_id.
func (c *conversation) addToolResult(p string, m gjson.Result) error {
	id := m.Get("tool_call_id")
	var cl *call
	for _, x := range c.calls {
		if !x.legacy && id.Type == gjson.String && x.clientID == id.Str {
			cl = x
		}
	}
	if cl == nil {
		return refuse(p+".tool_call_id", "Messages with role 'tool' must be a response to a preceding message with 'tool_calls'; no call of the preceding assistant message has the id %s.", id.Raw)
	}
	if cl.answered {
		return refuse(p+".tool_call_id", "The tool call %s already has a response.", id.Raw)
	}
	return c.answer(p, cl, m.Get("content"))
}

// addFunctionResult answers the latest unanswered call of the function
// named in a legacy function message.
func (c *conversation) addFunctionResult(p string, m gjson.Result) error {
	name := m.Get("name")
	var cl *call
	for _, x := range c.calls {
		if !x.answered && name.Type == gjson.String && x.name == name.Str {
			cl = x
		}
	}
	if cl == nil {
		return refuse(p+".name", "Messages with role 'function' must answer a function_call of the preceding assistant message; none awaits %s.", name.Raw)
	}
	return c.answer(p, cl, m.Get("content"))
}

func (c *conversation) answer(p string, cl *call, content gjson.Result) error {
	blocks, err := textParts(p+".content", content, false)
	if err != nil {
		return err
	}
	cl.answered = true
	r := block{Type: "tool_result", ToolUseID: cl.id}
	switch {
	case len(blocks) == 1 && content.Type == gjson.String:
		r.Content = blocks[0].Text
	case len(blocks) > 0:
		r.Content = blocks
	}
	t := c.turn("user")
	t.results = append(t.results, r)
	return nil
}
