package anthropic

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/tokens"
)

// TestCutStreamUsageCountsWhatWasSent: a stream cut before message_delta
// (a client gone, a shutdown, an idle upstream) reports only
// message_start's output_tokens (1); the record must bill what the client
// received (issue 13).
func TestCutStreamUsageCountsWhatWasSent(t *testing.T) {
	text := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 20)
	args := `{"location":"Paris","unit":"c"}`
	var body bytes.Buffer
	body.WriteString("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\"," +
		"\"usage\":{\"input_tokens\":12,\"output_tokens\":1}}}\n\n")
	body.WriteString("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0," +
		"\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n")
	body.WriteString("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0," +
		"\"delta\":{\"type\":\"text_delta\",\"text\":\"" + text + "\"}}\n\n")
	body.WriteString("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1," +
		"\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"get_weather\",\"input\":{}}}\n\n")
	body.WriteString("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1," +
		"\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":" + `"{\"location\":\"Paris\",\"unit\":\"c\"}"` + "}}\n\n")

	r := &provider.Request{Model: "claude-haiku-4-5"}
	ctx, cancel := context.WithCancel(context.Background())
	s := newStream(ctx, cancel, io.NopCloser(&body), newTranslator("anthropic", r, goldenCreated, false))
	defer s.Close()
	var err error
	for err == nil {
		_, err = s.Next()
	}
	if errors.Is(err, io.EOF) {
		t.Fatal("a stream cut before message_delta ended cleanly")
	}
	got := s.Usage()
	sent := tokens.Count(r.Model, text+"get_weather"+args)
	if got.CompletionTokens != sent || !got.Estimated || got.PromptTokens != 12 ||
		got.TotalTokens != 12+sent {
		t.Errorf("Usage = %+v, want prompt 12 and the %d completion tokens sent, estimated", got, sent)
	}
}

// TestFinishedStreamUsageIsReported: once message_delta has given the
// final count, it is the upstream's, not an estimate.
func TestFinishedStreamUsageIsReported(t *testing.T) {
	body := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\"," +
		"\"usage\":{\"input_tokens\":12,\"output_tokens\":1}}}\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0," +
		"\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0," +
		"\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi there, a long answer.\"}}\n\n" +
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"}," +
		"\"usage\":{\"output_tokens\":3}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	r := &provider.Request{Model: "claude-haiku-4-5"}
	ctx, cancel := context.WithCancel(context.Background())
	s := newStream(ctx, cancel, io.NopCloser(strings.NewReader(body)), newTranslator("anthropic", r, goldenCreated, false))
	defer s.Close()
	var err error
	for err == nil {
		_, err = s.Next()
	}
	if !errors.Is(err, io.EOF) {
		t.Fatalf("Next = %v, want io.EOF", err)
	}
	want := provider.Usage{PromptTokens: 12, CompletionTokens: 3, TotalTokens: 15}
	if got := s.Usage(); got != want {
		t.Errorf("Usage = %+v, want %+v", got, want)
	}
}
