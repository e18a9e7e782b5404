package openai

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/sse"
)

// BenchmarkStreamNext relays a chat stream as OpenAI sends it (a role
// chunk, 13 content chunks, the finish chunk, the usage chunk and
// [DONE]) from memory, without the network: the gateway's own work per
// event (issue 18).
func BenchmarkStreamNext(b *testing.B) {
	const head = `data: {"id":"chatcmpl-fake00000000000000000002","object":"chat.completion.chunk","created":1795701376,` +
		`"model":"gpt-5.4-mini","service_tier":"default","system_fingerprint":"fp_fake","choices":[{"index":0,`
	var body strings.Builder
	body.WriteString(head + `"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null}` + "\n\n")
	for i := range 13 {
		body.WriteString(head + `"delta":{"content":" word` + strconv.Itoa(i) + `"},"logprobs":null,"finish_reason":null}],"usage":null}` + "\n\n")
	}
	body.WriteString(head + `"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":null}` + "\n\n")
	body.WriteString(`data: {"id":"chatcmpl-fake00000000000000000002","object":"chat.completion.chunk","created":1795701376,` +
		`"model":"gpt-5.4-mini","service_tier":"default","system_fingerprint":"fp_fake","choices":[],` +
		`"usage":{"prompt_tokens":12,"completion_tokens":13,"total_tokens":25}}` + "\n\n")
	body.WriteString("data: [DONE]\n\n")
	data := []byte(body.String())
	c := &Client{opt: Options{Name: "openai"}}
	r := &provider.Request{Model: "gpt-5.4-mini", UpstreamModel: "gpt-5.4-mini", Stream: true, IncludeUsage: true}
	req, _ := http.NewRequestWithContext(context.Background(), "POST", "http://upstream/", nil)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		resp := &http.Response{Body: io.NopCloser(bytes.NewReader(data)), Request: req}
		s := &stream{c: c, r: r, resp: resp, cancel: func() {}, rd: sse.NewReader(resp.Body, 0)}
		for {
			if _, err := s.Next(); err != nil {
				if err != io.EOF {
					b.Fatal(err)
				}
				break
			}
		}
		s.Close()
	}
}
