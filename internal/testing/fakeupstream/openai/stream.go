package fakeopenai

import (
	"net/http"
	"strconv"
	"time"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/testing/fakeupstream"
)

// startStream writes the headers of an event stream and returns its
// writer, pausing delay between events.
func (c *call) startStream(delay time.Duration) *fakeupstream.Events {
	h := c.header("text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	rateHeaders(h)
	c.w.WriteHeader(http.StatusOK)
	return fakeupstream.NewEvents(c.w, c.r, delay)
}

// done is the event that ends a stream.
var done = []byte("data: [DONE]\n\n")

// midstreamError is the event sent for "fake:midstream-error".
var midstreamError = append(append([]byte("data: "), errServer.body()...), "\n\n"...)

// usageMode is how a stream reports usage.
type usageMode uint8

const (
	noUsage   usageMode = iota // no usage key anywhere
	usageNull                  // "usage":null on each chunk, then a usage chunk
	groqUsage                  // x_groq.usage on the final chunk
)

func (s *Server) usageMode(asked bool) usageMode {
	switch {
	case s.opt.GroqUsage:
		return groqUsage
	case asked && !s.opt.NoStreamUsage:
		return usageNull
	}
	return noUsage
}

// chunker builds the chunks of one stream in a reused buffer.
type chunker struct {
	head []byte // `data: {"id":…,"choices":[`
	mode usageMode
	buf  []byte
}

// newChunker starts chunks of a stream; a chat stream has a service tier
// and fingerprint, a completions stream has tier "".
func newChunker(id, object, model, tier string, mode usageMode) *chunker {
	h := make([]byte, 0, 256)
	h = append(h, `data: {"id":`...)
	h = gjson.AppendJSONString(h, id)
	h = append(h, `,"object":"`...)
	h = append(h, object...)
	h = append(h, `","created":`...)
	h = strconv.AppendInt(h, time.Now().Unix(), 10)
	h = append(h, `,"model":`...)
	h = gjson.AppendJSONString(h, model)
	if tier != "" {
		h = append(h, `,"service_tier":"`...)
		h = append(h, tier...)
		h = append(h, `","system_fingerprint":"`+fingerprint+`"`...)
	}
	h = append(h, `,"choices":[`...)
	return &chunker{head: h, mode: mode, buf: make([]byte, 0, 512)}
}

// begin starts a chat chunk with one choice of the given index; the
// caller appends the delta object next.
func (k *chunker) begin(index int) {
	k.buf = append(k.buf[:0], k.head...)
	k.buf = append(k.buf, `{"index":`...)
	k.buf = strconv.AppendInt(k.buf, int64(index), 10)
	k.buf = append(k.buf, `,"delta":`...)
}

// text is a completions chunk: one choice with text and finish ("" for null).
func (k *chunker) text(index int, text, finish string, xGroq []byte) []byte {
	k.buf = append(k.buf[:0], k.head...)
	k.buf = append(k.buf, `{"text":`...)
	k.buf = gjson.AppendJSONString(k.buf, text)
	k.buf = append(k.buf, `,"index":`...)
	k.buf = strconv.AppendInt(k.buf, int64(index), 10)
	return k.end(nil, finish, xGroq)
}

// end closes the choice with logprobs (nil for null) and finish ("" for
// null), then the chunk with xGroq (nil for none) and the usage key.
func (k *chunker) end(logprobs []byte, finish string, xGroq []byte) []byte {
	k.buf = append(k.buf, `,"logprobs":`...)
	if logprobs == nil {
		k.buf = append(k.buf, "null"...)
	} else {
		k.buf = append(k.buf, logprobs...)
	}
	k.buf = append(k.buf, `,"finish_reason":`...)
	k.buf = appendNullable(k.buf, finish)
	k.buf = append(k.buf, "}]"...)
	if xGroq != nil {
		k.buf = append(k.buf, `,"x_groq":`...)
		k.buf = append(k.buf, xGroq...)
	}
	if k.mode == usageNull {
		k.buf = append(k.buf, `,"usage":null`...)
	}
	return append(k.buf, "}\n\n"...)
}

// usage is the final choices:[] chunk carrying u.
func (k *chunker) usage(u []byte) []byte {
	k.buf = append(k.buf[:0], k.head...)
	k.buf = append(k.buf, `],"usage":`...)
	k.buf = append(k.buf, u...)
	return append(k.buf, "}\n\n"...)
}

// xGroq renders Groq's x_groq object for the final chunk.
func xGroq(reqID string, prompt, completion int) []byte {
	b := append([]byte(`{"id":`), gjson.AppendJSONString(nil, reqID)...)
	b = append(b, `,"usage":{"queue_time":0.01,"prompt_tokens":`...)
	b = strconv.AppendInt(b, int64(prompt), 10)
	b = append(b, `,"prompt_time":0.001,"completion_tokens":`...)
	b = strconv.AppendInt(b, int64(completion), 10)
	b = append(b, `,"completion_time":0.01,"total_tokens":`...)
	b = strconv.AppendInt(b, int64(prompt+completion), 10)
	return append(b, `,"total_time":0.011}}`...)
}
