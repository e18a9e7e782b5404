package responses

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"

	"github.com/switchyard-gw/switchyard/internal/envelope"
)

// Output items, their members in the order OpenAI sends them. The events
// of a stream and its final response are rendered from the same values.

type messageItem struct {
	ID      string `json:"id"`
	Type    string `json:"type"`
	Status  string `json:"status"`
	Content []any  `json:"content"` // *outputText, *refusalPart
	Role    string `json:"role"`
}

type outputText struct {
	Type        string `json:"type"`
	Annotations []any  `json:"annotations"`
	Logprobs    []any  `json:"logprobs"`
	Text        string `json:"text"`
}

type refusalPart struct {
	Type    string `json:"type"`
	Refusal string `json:"refusal"`
}

type callItem struct {
	ID        string `json:"id"`
	Type      string `json:"type"`
	Status    string `json:"status"`
	Arguments string `json:"arguments"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
}

type reasoningItem struct {
	ID               string        `json:"id"`
	Type             string        `json:"type"`
	EncryptedContent string        `json:"encrypted_content,omitempty"`
	Summary          []summaryText `json:"summary"`
}

type summaryText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

func newMessage(id string) *messageItem {
	return &messageItem{ID: id, Type: "message", Status: "in_progress", Content: []any{}, Role: "assistant"}
}

func newText(s string) *outputText {
	return &outputText{Type: "output_text", Annotations: []any{}, Logprobs: []any{}, Text: s}
}

func newReasoning(id string) *reasoningItem {
	return &reasoningItem{ID: id, Type: "reasoning", Summary: []summaryText{}}
}

// seal returns the envelope of Anthropic thinking blocks ("" for none).
func seal(blocks []json.RawMessage) string {
	if len(blocks) == 0 {
		return ""
	}
	b, _ := json.Marshal(blocks)
	return envelope.Seal("anthropic", b)
}

// randomID returns prefix followed by 48 random hex digits, the shape of
// OpenAI's item ids.
func randomID(prefix string) string {
	var b [24]byte
	rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}
