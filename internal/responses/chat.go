package responses

import (
	"encoding/json"

	"github.com/tidwall/gjson"
)

// chatBody is the chat completions request a Responses request becomes.
type chatBody struct {
	Model               string          `json:"model"`
	Messages            []chatMessage   `json:"messages"`
	Tools               []chatTool      `json:"tools,omitempty"`
	ToolChoice          json.RawMessage `json:"tool_choice,omitempty"`
	ParallelToolCalls   *bool           `json:"parallel_tool_calls,omitempty"`
	ResponseFormat      json.RawMessage `json:"response_format,omitempty"`
	Verbosity           string          `json:"verbosity,omitempty"`
	MaxCompletionTokens *int64          `json:"max_completion_tokens,omitempty"`
	ReasoningEffort     string          `json:"reasoning_effort,omitempty"`
	Temperature         json.RawMessage `json:"temperature,omitempty"`
	TopP                json.RawMessage `json:"top_p,omitempty"`
	User                string          `json:"user,omitempty"`
	Stream              bool            `json:"stream,omitempty"`
	StreamOptions       *streamOptions  `json:"stream_options,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type chatTool struct {
	Type     string       `json:"type"`
	Function chatFunction `json:"function"`
}

type chatFunction struct {
	Name        string          `json:"name"`
	Description *string         `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	Strict      bool            `json:"strict"`
}

// Chat returns the chat completions body for upstreams that do not serve
// the Responses API natively, with stream_options.include_usage when it
// streams. Its errors are *FieldError: what chat cannot carry.
func (r *Request) Chat() ([]byte, error) {
	if r.nativeOnly != nil {
		return nil, r.nativeOnly
	}
	msgs, err := r.chatMessages()
	if err != nil {
		return nil, err
	}
	c := chatBody{
		Model: r.Model, Messages: msgs, Verbosity: r.verbosity, MaxCompletionTokens: r.maxOutput,
		ReasoningEffort: r.effort, Temperature: r.temperature, TopP: r.topP, User: r.user,
		ResponseFormat: r.chatFormat(), Stream: r.Stream,
	}
	if c.User == "" {
		c.User = r.safetyID
	}
	if r.Stream {
		c.StreamOptions = &streamOptions{IncludeUsage: true}
	}
	// Chat refuses tool_choice and parallel_tool_calls without tools;
	// the Responses API takes them.
	if len(r.tools) > 0 {
		c.Tools = make([]chatTool, len(r.tools))
		for i, t := range r.tools {
			params := t.Parameters
			if string(params) == "null" {
				params = nil
			}
			c.Tools[i] = chatTool{"function", chatFunction{t.Name, t.Description, params, t.Strict}}
		}
		c.ToolChoice, c.ParallelToolCalls = r.chatToolChoice(), r.parallel
	}
	return json.Marshal(c)
}

// chatMessages returns the instructions, the history and the input as
// chat messages.
func (r *Request) chatMessages() ([]chatMessage, error) {
	var b chatBuilder
	if r.instructions != nil {
		b.msgs = append(b.msgs, chatMessage{Role: "system", Content: *r.instructions})
	}
	for _, item := range r.history {
		if err := b.add(gjson.ParseBytes(item), "previous_response_id"); err != nil {
			return nil, err
		}
	}
	for i, item := range r.input {
		if err := b.add(gjson.ParseBytes(item), indexed("input", i)); err != nil {
			return nil, err
		}
	}
	return b.msgs, nil
}

// chatToolChoice returns tool_choice in chat's nested form.
func (r *Request) chatToolChoice() json.RawMessage {
	v := gjson.ParseBytes(r.toolChoice)
	type fn struct {
		Name string `json:"name"`
	}
	type named struct {
		Type     string `json:"type"`
		Function fn     `json:"function"`
	}
	var out any
	switch v.Get("type").Str {
	case "function":
		out = named{"function", fn{v.Get("name").Str}}
	case "allowed_tools":
		tools := []named{}
		v.Get("tools").ForEach(func(_, t gjson.Result) bool {
			tools = append(tools, named{"function", fn{t.Get("name").Str}})
			return true
		})
		mode := v.Get("mode").Str
		if mode == "" {
			mode = "auto"
		}
		type allowed struct {
			Mode  string  `json:"mode"`
			Tools []named `json:"tools"`
		}
		out = struct {
			Type    string  `json:"type"`
			Allowed allowed `json:"allowed_tools"`
		}{"allowed_tools", allowed{mode, tools}}
	default:
		return r.toolChoice // a string, or nil
	}
	b, _ := json.Marshal(out)
	return b
}

// chatFormat returns text.format as chat's response_format (nil for
// plain text).
func (r *Request) chatFormat() json.RawMessage {
	f := gjson.ParseBytes(r.format)
	switch f.Get("type").Str {
	case "json_object":
		return json.RawMessage(`{"type":"json_object"}`)
	case "json_schema":
		type schema struct {
			Name        string          `json:"name"`
			Description string          `json:"description,omitempty"`
			Schema      json.RawMessage `json:"schema"`
			Strict      *bool           `json:"strict,omitempty"`
		}
		s := schema{Name: f.Get("name").Str, Description: f.Get("description").Str, Schema: json.RawMessage(f.Get("schema").Raw)}
		if st := f.Get("strict"); present(st) {
			b := st.Bool()
			s.Strict = &b
		}
		b, _ := json.Marshal(struct {
			Type   string `json:"type"`
			Schema schema `json:"json_schema"`
		}{"json_schema", s})
		return b
	}
	return nil
}
