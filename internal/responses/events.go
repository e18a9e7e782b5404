package responses

import (
	"encoding/json"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// Stream events, "type" and "sequence_number" first, the rest in the
// order OpenAI sends them.

type lifecycleEvent struct {
	Type     string    `json:"type"`
	Seq      int       `json:"sequence_number"`
	Response *response `json:"response"`
}

type itemEvent struct {
	Type        string `json:"type"`
	Seq         int    `json:"sequence_number"`
	OutputIndex int    `json:"output_index"`
	Item        any    `json:"item"`
}

type partEvent struct {
	Type         string `json:"type"`
	Seq          int    `json:"sequence_number"`
	ItemID       string `json:"item_id"`
	OutputIndex  int    `json:"output_index"`
	ContentIndex int    `json:"content_index"`
	Part         any    `json:"part"`
}

type textDeltaEvent struct {
	Type         string `json:"type"`
	Seq          int    `json:"sequence_number"`
	ItemID       string `json:"item_id"`
	OutputIndex  int    `json:"output_index"`
	ContentIndex int    `json:"content_index"`
	Delta        string `json:"delta"`
	Logprobs     []any  `json:"logprobs"`
}

type textDoneEvent struct {
	Type         string `json:"type"`
	Seq          int    `json:"sequence_number"`
	ItemID       string `json:"item_id"`
	OutputIndex  int    `json:"output_index"`
	ContentIndex int    `json:"content_index"`
	Text         string `json:"text"`
	Logprobs     []any  `json:"logprobs"`
}

type refusalDeltaEvent struct {
	Type         string `json:"type"`
	Seq          int    `json:"sequence_number"`
	ItemID       string `json:"item_id"`
	OutputIndex  int    `json:"output_index"`
	ContentIndex int    `json:"content_index"`
	Delta        string `json:"delta"`
}

type refusalDoneEvent struct {
	Type         string `json:"type"`
	Seq          int    `json:"sequence_number"`
	ItemID       string `json:"item_id"`
	OutputIndex  int    `json:"output_index"`
	ContentIndex int    `json:"content_index"`
	Refusal      string `json:"refusal"`
}

type argsDeltaEvent struct {
	Type        string `json:"type"`
	Seq         int    `json:"sequence_number"`
	ItemID      string `json:"item_id"`
	OutputIndex int    `json:"output_index"`
	Delta       string `json:"delta"`
}

type argsDoneEvent struct {
	Type        string `json:"type"`
	Seq         int    `json:"sequence_number"`
	ItemID      string `json:"item_id"`
	OutputIndex int    `json:"output_index"`
	Name        string `json:"name"`
	Arguments   string `json:"arguments"`
}

type summaryPartEvent struct {
	Type         string      `json:"type"`
	Seq          int         `json:"sequence_number"`
	ItemID       string      `json:"item_id"`
	OutputIndex  int         `json:"output_index"`
	SummaryIndex int         `json:"summary_index"`
	Part         summaryText `json:"part"`
}

type summaryDeltaEvent struct {
	Type         string `json:"type"`
	Seq          int    `json:"sequence_number"`
	ItemID       string `json:"item_id"`
	OutputIndex  int    `json:"output_index"`
	SummaryIndex int    `json:"summary_index"`
	Delta        string `json:"delta"`
}

type summaryDoneEvent struct {
	Type         string `json:"type"`
	Seq          int    `json:"sequence_number"`
	ItemID       string `json:"item_id"`
	OutputIndex  int    `json:"output_index"`
	SummaryIndex int    `json:"summary_index"`
	Text         string `json:"text"`
}

// errorEvent carries the error both flat (the spec's shape, read by
// openai-node and .NET) and nested (what OpenAI sends, read by
// openai-python and the Vercel AI SDK).
type errorEvent struct {
	Type    string      `json:"type"`
	Seq     int         `json:"sequence_number"`
	Code    string      `json:"code"`
	Message string      `json:"message"`
	Param   *string     `json:"param"`
	Error   nestedError `json:"error"`
}

type nestedError struct {
	Type    string  `json:"type"`
	Code    string  `json:"code"`
	Message string  `json:"message"`
	Param   *string `json:"param"`
}

// FailedEvents returns the data of the two events that end a stream
// whose upstream failed after it started: error, then response.failed.
// lastSeq is the sequence number of the last event sent, created the
// data of the stream's response.created event, whose response the
// failed one repeats with status "failed" and the error (code such as
// "server_error").
func FailedEvents(lastSeq int, created []byte, code, message string) [][]byte {
	e, _ := json.Marshal(errorEvent{"error", lastSeq + 1, code, message, nil, nestedError{code, code, message, nil}})
	resp := []byte(gjson.GetBytes(created, "response").Raw)
	if !gjson.ValidBytes(resp) || !gjson.ParseBytes(resp).IsObject() {
		resp = []byte(`{}`)
	}
	resp, _ = sjson.SetBytes(resp, "status", "failed")
	resp, _ = sjson.SetRawBytes(resp, "error", mustJSON(respError{code, message}))
	resp, _ = sjson.SetRawBytes(resp, "usage", []byte("null"))
	f := []byte(`{"type":"response.failed","sequence_number":`)
	f = append(f, mustJSON(lastSeq+2)...)
	f = append(f, `,"response":`...)
	f = append(append(f, resp...), '}')
	return [][]byte{e, f}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
