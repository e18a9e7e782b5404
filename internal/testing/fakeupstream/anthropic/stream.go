package fakeanthropic

import (
	"encoding/json"
	"net/http"

	"github.com/switchyard-gw/switchyard/internal/testing/fakeupstream"
)

// events writes one Anthropic event stream.
type events struct{ *fakeupstream.Events }

// send writes "event: <name>\ndata: <json of v>\n\n" and flushes it.
func (e events) send(name string, v any) {
	if e.Err() != nil {
		return
	}
	data, err := json.Marshal(v)
	if err != nil {
		return // the payloads are structs of strings and ints
	}
	b := make([]byte, 0, len(name)+len(data)+16)
	b = append(append(append(b, "event: "...), name...), "\ndata: "...)
	e.Send(append(append(b, data...), "\n\n"...))
}

// Event payloads, "type" first as Anthropic sends them.

type messageStart struct {
	Type    string      `json:"type"`
	Message *messageOut `json:"message"`
}

type blockStart struct {
	Type         string     `json:"type"`
	Index        int        `json:"index"`
	ContentBlock contentOut `json:"content_block"`
}

type blockDelta struct {
	Type  string `json:"type"`
	Index int    `json:"index"`
	Delta delta  `json:"delta"`
}

type delta struct {
	Type        string  `json:"type"`
	Text        *string `json:"text,omitempty"`
	PartialJSON *string `json:"partial_json,omitempty"`
	Thinking    *string `json:"thinking,omitempty"`
	Signature   *string `json:"signature,omitempty"`
}

type indexOnly struct {
	Type  string `json:"type"`
	Index int    `json:"index"`
}

type messageDelta struct {
	Type  string `json:"type"`
	Delta struct {
		StopReason   *string `json:"stop_reason"`
		StopSequence *string `json:"stop_sequence"`
	} `json:"delta"`
	Usage struct {
		OutputTokens  int            `json:"output_tokens"`
		OutputDetails *outputDetails `json:"output_tokens_details,omitempty"`
	} `json:"usage"`
}

type typeOnly struct {
	Type string `json:"type"`
}

type errorEvent struct {
	Type  string `json:"type"`
	Error struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

// stream sends m in the canonical order (fixtures messages_stream_*.sse):
// message_start, each block's start, deltas and stop (a ping after the
// first start), message_delta, message_stop. With midError it sends an
// overloaded error event after the first words instead.
func (s *Server) stream(c *call, m *messageOut, a *answer, midError bool) {
	h := c.header("text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	rateHeaders(h)
	c.w.WriteHeader(http.StatusOK)
	e := events{fakeupstream.NewEvents(c.w, c.r, s.opt.TokenDelay)}
	start := *m
	start.Content, start.StopReason, start.StopSequence = []contentOut{}, nil, nil
	start.Usage.OutputTokens = 1
	e.send("message_start", messageStart{Type: "message_start", Message: &start})
	if midError {
		streamError(e)
		return
	}
	for i, b := range m.Content {
		streamBlock(e, i, b, a)
	}
	var md messageDelta
	md.Type, md.Delta.StopReason, md.Delta.StopSequence = "message_delta", m.StopReason, m.StopSequence
	md.Usage.OutputTokens, md.Usage.OutputDetails = m.Usage.OutputTokens, m.Usage.OutputDetails
	e.send("message_delta", md)
	e.send("message_stop", typeOnly{Type: "message_stop"})
}

// streamBlock sends content block i: text word by word, a tool input in
// fragments after an empty one, thinking word by word then its signature
// (fixture stream_thinking.sse), a redacted_thinking block whole.
func streamBlock(e events, i int, b contentOut, a *answer) {
	start, empty := b, ""
	var deltas []delta
	switch b.Type {
	case "text":
		start.Text = &empty
		for _, p := range a.text {
			deltas = append(deltas, delta{Type: "text_delta", Text: &p})
		}
	case "tool_use":
		start.Input = json.RawMessage(`{}`)
		for _, p := range append([]string{""}, argPieces(string(b.Input))...) {
			deltas = append(deltas, delta{Type: "input_json_delta", PartialJSON: &p})
		}
	case "thinking":
		start.Thinking, start.Signature = &empty, &empty
		for _, p := range a.think.pieces {
			deltas = append(deltas, delta{Type: "thinking_delta", Thinking: &p})
		}
		deltas = append(deltas, delta{Type: "signature_delta", Signature: b.Signature})
	}
	e.send("content_block_start", blockStart{Type: "content_block_start", Index: i, ContentBlock: start})
	if i == 0 {
		e.send("ping", typeOnly{Type: "ping"})
	}
	for _, d := range deltas {
		e.send("content_block_delta", blockDelta{Type: "content_block_delta", Index: i, Delta: d})
	}
	e.send("content_block_stop", indexOnly{Type: "content_block_stop", Index: i})
}

// streamError is fixture messages_stream_error_overloaded.sse: a text
// block begun, a first fragment, then the error event.
func streamError(e events) {
	empty, first := "", "Hel"
	e.send("content_block_start", blockStart{Type: "content_block_start", ContentBlock: contentOut{Type: "text", Text: &empty}})
	e.send("content_block_delta", blockDelta{Type: "content_block_delta", Delta: delta{Type: "text_delta", Text: &first}})
	var ev errorEvent
	ev.Type, ev.Error.Type, ev.Error.Message = "error", errOverload.typ, errOverload.message
	e.send("error", ev)
}
