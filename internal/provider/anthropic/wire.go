package anthropic

import (
	"bytes"
	"encoding/json"
)

// The Messages API request, encoded strictly: only the fields the
// translation sets.

type messagesRequest struct {
	Model         string           `json:"model"`
	MaxTokens     int              `json:"max_tokens"`
	System        any              `json:"system,omitempty"` // string or []block
	Messages      []message        `json:"messages"`
	Temperature   *float64         `json:"temperature,omitempty"`
	TopP          *float64         `json:"top_p,omitempty"`
	StopSequences []string         `json:"stop_sequences,omitempty"`
	Stream        bool             `json:"stream,omitempty"`
	Tools         []toolDef        `json:"tools,omitempty"`
	ToolChoice    *toolChoice      `json:"tool_choice,omitempty"`
	Metadata      *requestMetadata `json:"metadata,omitempty"`
	Thinking      *thinkingConfig  `json:"thinking,omitempty"`
	OutputConfig  *outputConfig    `json:"output_config,omitempty"`
}

type message struct {
	Role    string `json:"role"`
	Content any    `json:"content"` // string or []block
}

// block is any request content block; each type uses its own fields.
type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	Source    *source         `json:"source,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   any             `json:"content,omitempty"` // tool_result: string or []block
	// thinking and redacted_thinking blocks keep the client's JSON of
	// their strings, so that they go back exactly as Anthropic sent them.
	Thinking  json.RawMessage `json:"thinking,omitempty"`
	Signature json.RawMessage `json:"signature,omitempty"`
	Data      json.RawMessage `json:"data,omitempty"`
}

type source struct {
	Type      string `json:"type"` // base64 or url
	MediaType string `json:"media_type,omitempty"`
	Data      string `json:"data,omitempty"`
	URL       string `json:"url,omitempty"`
}

type toolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
}

type toolChoice struct {
	Type                   string `json:"type"` // auto, any, tool, none
	Name                   string `json:"name,omitempty"`
	DisableParallelToolUse bool   `json:"disable_parallel_tool_use,omitempty"`
}

// thinkingConfig is the thinking field: enabled with a budget, adaptive,
// or disabled.
type thinkingConfig struct {
	Type         string `json:"type"`
	BudgetTokens int    `json:"budget_tokens,omitempty"`
}

// outputConfig steers adaptive thinking (effort) and constrains the
// answer to a JSON schema (format).
type outputConfig struct {
	Effort string        `json:"effort,omitempty"`
	Format *outputFormat `json:"format,omitempty"`
}

type outputFormat struct {
	Type   string          `json:"type"` // json_schema
	Schema json.RawMessage `json:"schema"`
}

type requestMetadata struct {
	UserID string `json:"user_id"`
}

// marshal encodes v compactly without escaping <, > and &, so text reaches
// the upstream as the client wrote it.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}
