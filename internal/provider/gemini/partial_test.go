package gemini

import (
	"io"
	"strings"
	"testing"

	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/tokens"
)

// TestCutStreamUsage: a stream cut before Gemini's final usageMetadata (a
// client gone, a shutdown, an idle upstream) bills what the client
// received, as an estimate (issue 13): with no usage reported yet, and
// with running counts that lag the text sent.
func TestCutStreamUsage(t *testing.T) {
	text := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 20)
	sent := tokens.Count(chatReq().Model, text)
	for _, tt := range []struct {
		name, usage string
		prompt      int // 0: estimated, only checked to be counted
	}{
		{"no usage yet", "", 0},
		{"prompt count alone", `,"usageMetadata":{"promptTokenCount":9,"totalTokenCount":9}`, 9},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := cutAfterOneChunk(t, `data: {"candidates":[{"index":0,"content":{"role":"model","parts":[{"text":"`+
				text+`"}]}}]`+tt.usage+"}\n\n")
			if got.CompletionTokens != sent || !got.Estimated || got.PromptTokens == 0 ||
				(tt.prompt != 0 && got.PromptTokens != tt.prompt) || got.TotalTokens != got.PromptTokens+sent {
				t.Errorf("Usage = %+v, want the %d completion tokens sent and the prompt, estimated", got, sent)
			}
		})
	}
}

// cutAfterOneChunk reads the role and text chunks of body and returns the
// usage a handler reads when its client goes away there.
func cutAfterOneChunk(t *testing.T, body string) provider.Usage {
	t.Helper()
	r := chatReq()
	r.Stream = true
	s := newStream(newTranslator("gemini", r, chatRequest{}, testEnv()), t.Context(), io.NopCloser(strings.NewReader(body)), nil)
	defer s.Close()
	for range 2 {
		if _, err := s.Next(); err != nil {
			t.Fatalf("Next = %v", err)
		}
	}
	return s.Usage()
}
