package messages

import "encoding/json"

// The Messages stream's events, each with "type" first.

type messageStart struct {
	Type    string  `json:"type"` // "message_start"
	Message message `json:"message"`
}

type blockStart struct {
	Type         string `json:"type"` // "content_block_start"
	Index        int    `json:"index"`
	ContentBlock any    `json:"content_block"`
}

type blockDelta struct {
	Type  string `json:"type"` // "content_block_delta"
	Index int    `json:"index"`
	Delta any    `json:"delta"`
}

type blockStop struct {
	Type  string `json:"type"` // "content_block_stop"
	Index int    `json:"index"`
}

type messageDelta struct {
	Type  string   `json:"type"` // "message_delta"
	Delta stopInfo `json:"delta"`
	Usage usage    `json:"usage"`
}

type stopInfo struct {
	StopReason   string  `json:"stop_reason"`
	StopSequence *string `json:"stop_sequence"`
}

type messageStop struct {
	Type string `json:"type"` // "message_stop"
}

type textDelta struct {
	Type string `json:"type"` // "text_delta"
	Text string `json:"text"`
}

type inputJSONDelta struct {
	Type        string `json:"type"` // "input_json_delta"
	PartialJSON string `json:"partial_json"`
}

type thinkingDelta struct {
	Type     string `json:"type"` // "thinking_delta"
	Thinking string `json:"thinking"`
}

type signatureDelta struct {
	Type      string `json:"type"` // "signature_delta"
	Signature string `json:"signature"`
}

type redactedBlock struct {
	Type string `json:"type"` // "redacted_thinking"
	Data string `json:"data"`
}

// emptyInput is a tool_use block's input in its content_block_start.
var emptyInput = json.RawMessage(`{}`)
