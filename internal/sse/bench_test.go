package sse

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
)

// openAIChunk is a content chunk as OpenAI sends it with include_usage.
const openAIChunk = `{"id":"chatcmpl-C3kR2bW7p8yQe1fM0aZt9LxVnHs4D","object":"chat.completion.chunk","created":1754929200,"model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_34a54ae93c","choices":[{"index":0,"delta":{"content":" token"},"logprobs":null,"finish_reason":null}],"usage":null}`

// openAIStream returns a chat stream of n content chunks, a usage chunk and
// [DONE].
func openAIStream(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		b.WriteString("data: ")
		b.WriteString(openAIChunk[:len(openAIChunk)-60])
		b.WriteString(strconv.Itoa(i))
		b.WriteString(openAIChunk[len(openAIChunk)-60:])
		b.WriteString("\n\n")
	}
	b.WriteString(`data: {"id":"chatcmpl-C3kR2bW7p8yQe1fM0aZt9LxVnHs4D","object":"chat.completion.chunk","created":1754929200,"model":"gpt-4o-mini-2024-07-18","choices":[],"usage":{"prompt_tokens":19,"completion_tokens":200,"total_tokens":219}}` + "\n\n")
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}

// anthropicStream returns a Messages stream of n text deltas.
func anthropicStream(n int) []byte {
	var b bytes.Buffer
	b.WriteString("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_01XFDUDYJgAACzvnptvVoYEL\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"usage\":{\"input_tokens\":21,\"output_tokens\":1}}}\n\n")
	b.WriteString("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n")
	for i := range n {
		b.WriteString("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\" token" + strconv.Itoa(i) + "\"}}\n\n")
	}
	b.WriteString("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n")
	b.WriteString("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":200}}\n\n")
	b.WriteString("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
	return b.Bytes()
}

func BenchmarkReader(b *testing.B) {
	for _, bb := range []struct {
		name   string
		stream []byte
	}{
		{"openai_200_chunks", openAIStream(200)},
		{"anthropic_200_deltas", anthropicStream(200)},
		// Only "\r": once cost a scan of the whole buffer per line.
		{"openai_200_chunks_cr", bytes.ReplaceAll(openAIStream(200), []byte("\n"), []byte("\r"))},
	} {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(bb.stream)))
			var src bytes.Reader
			for b.Loop() {
				src.Reset(bb.stream)
				r := NewReader(&src, 0)
				for {
					_, err := r.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// discard is a flushable ResponseWriter that keeps nothing.
type discard struct{ h http.Header }

func (d discard) Header() http.Header         { return d.h }
func (d discard) Write(b []byte) (int, error) { return len(b), nil }
func (d discard) WriteHeader(int)             {}
func (d discard) Flush()                      {}

func BenchmarkWriterData(b *testing.B) {
	w := NewWriter(discard{http.Header{}}, httptest.NewRequest("POST", "/", nil))
	chunk := []byte(openAIChunk)
	b.ReportAllocs()
	b.SetBytes(int64(len(chunk)))
	for b.Loop() {
		if err := w.Data(chunk); err != nil {
			b.Fatal(err)
		}
	}
}
