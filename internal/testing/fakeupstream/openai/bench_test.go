package fakeopenai

import (
	"net/http/httptest"
	"strings"
	"testing"
)

func benchmarkHandler(b *testing.B, opt Options, path, body string) {
	s := Start(opt)
	defer s.Close()
	h := s.Handler()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		req := httptest.NewRequest("POST", "/v1"+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+defaultKey)
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
}

func BenchmarkChat(b *testing.B) {
	benchmarkHandler(b, Options{}, "/chat/completions", `{"model":"gpt-4o-mini","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Say hello"}],"temperature":0.2}`)
}

func BenchmarkChatStream(b *testing.B) {
	benchmarkHandler(b, Options{}, "/chat/completions", `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Say hello"}],"stream":true,"stream_options":{"include_usage":true}}`)
}

func BenchmarkChatTools(b *testing.B) {
	benchmarkHandler(b, Options{}, "/chat/completions", `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Weather?"}],"tools":[`+weatherTool+`,`+timeTool+`]}`)
}

func BenchmarkEmbeddings(b *testing.B) {
	benchmarkHandler(b, Options{}, "/embeddings", `{"model":"text-embedding-3-small","input":["first","second"],"encoding_format":"base64"}`)
}
