package messages

import "encoding/json"

// The chat completions body a Messages request becomes, in the order its
// fields are written.

type chatRequest struct {
	Model             string          `json:"model"`
	Messages          []chatMessage   `json:"messages"`
	MaxTokens         int             `json:"max_tokens"`
	Temperature       json.RawMessage `json:"temperature,omitempty"`
	TopP              json.RawMessage `json:"top_p,omitempty"`
	Stop              []string        `json:"stop,omitempty"`
	Tools             []chatTool      `json:"tools,omitempty"`
	ToolChoice        any             `json:"tool_choice,omitempty"`
	ParallelToolCalls *bool           `json:"parallel_tool_calls,omitempty"`
	User              string          `json:"user,omitempty"`
	ReasoningEffort   string          `json:"reasoning_effort,omitempty"`
	ResponseFormat    *responseFormat `json:"response_format,omitempty"`
	Stream            bool            `json:"stream,omitempty"`
	StreamOptions     *streamOptions  `json:"stream_options,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// chatMessage is one chat message. Content is a string, a []any of parts,
// or nil (omitted: an assistant turn of tool calls only).
type chatMessage struct {
	Role           string            `json:"role"`
	Content        any               `json:"content,omitempty"`
	ToolCalls      []chatToolCall    `json:"tool_calls,omitempty"`
	ToolCallID     string            `json:"tool_call_id,omitempty"`
	ThinkingBlocks []json.RawMessage `json:"thinking_blocks,omitempty"`
}

type textPart struct {
	Type string `json:"type"` // "text"
	Text string `json:"text"`
}

type imagePart struct {
	Type     string   `json:"type"` // "image_url"
	ImageURL imageURL `json:"image_url"`
}

type imageURL struct {
	URL string `json:"url"`
}

type filePart struct {
	Type string   `json:"type"` // "file"
	File fileData `json:"file"`
}

type fileData struct {
	Filename string `json:"filename"`
	FileData string `json:"file_data"`
}

type chatToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"` // "function"
	Function chatFunction `json:"function"`
}

type chatFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type chatTool struct {
	Type     string       `json:"type"` // "function"
	Function functionDecl `json:"function"`
}

type functionDecl struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	Strict      *bool           `json:"strict,omitempty"`
}

type namedToolChoice struct {
	Type     string `json:"type"` // "function"
	Function struct {
		Name string `json:"name"`
	} `json:"function"`
}

type responseFormat struct {
	Type       string     `json:"type"` // "json_schema"
	JSONSchema jsonSchema `json:"json_schema"`
}

type jsonSchema struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	Strict bool            `json:"strict"`
}
