package gemini

import (
	"io"
	"strings"
	"testing"

	"github.com/switchyard-gw/switchyard/internal/tokens"
)

// TestCutStreamUsageCountsWhatWasSent: a stream cut before Gemini has
// reported usageMetadata (a client gone, a shutdown, an idle upstream)
// must still bill what the client received, as an estimate (issue 13).
func TestCutStreamUsageCountsWhatWasSent(t *testing.T) {
	text := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 20)
	body := `data: {"candidates":[{"index":0,"content":{"role":"model","parts":[{"text":"` + text + `"}]}}]}` + "\n\n"
	r := chatReq()
	r.Stream = true
	tr := newTranslator("gemini", r, chatRequest{}, testEnv())
	s := newStream(tr, t.Context(), io.NopCloser(strings.NewReader(body)), nil)
	defer s.Close()
	// The client goes away after the first chunks: Usage is read
	// without the stream's end.
	for range 2 {
		if _, err := s.Next(); err != nil {
			t.Fatalf("Next = %v", err)
		}
	}
	got := s.Usage()
	if want := tokens.Count(r.Model, text); got.CompletionTokens != want || !got.Estimated || got.PromptTokens == 0 {
		t.Errorf("Usage = %+v, want the %d completion tokens sent and the prompt, estimated", got, want)
	}
}

// TestCutStreamUsageNotUnderRunningCounts: running usageMetadata that
// lags the text sent (a prompt count alone) does not lower the bill of a
// cut stream below what was sent.
func TestCutStreamUsageNotUnderRunningCounts(t *testing.T) {
	text := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 20)
	body := `data: {"candidates":[{"index":0,"content":{"role":"model","parts":[{"text":"` + text + `"}]}}],` +
		`"usageMetadata":{"promptTokenCount":9,"totalTokenCount":9}}` + "\n\n"
	r := chatReq()
	r.Stream = true
	tr := newTranslator("gemini", r, chatRequest{}, testEnv())
	s := newStream(tr, t.Context(), io.NopCloser(strings.NewReader(body)), nil)
	defer s.Close()
	for range 2 {
		if _, err := s.Next(); err != nil {
			t.Fatalf("Next = %v", err)
		}
	}
	got := s.Usage()
	if want := tokens.Count(r.Model, text); got.CompletionTokens != want || got.PromptTokens != 9 ||
		got.TotalTokens != 9+want || !got.Estimated {
		t.Errorf("Usage = %+v, want prompt 9 and the %d completion tokens sent, estimated", got, want)
	}
}
