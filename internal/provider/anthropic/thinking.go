package anthropic

import (
	"encoding/json"
	"fmt"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/envelope"
)

// thinkingBlocks reads an assistant message's thinking_blocks (the chat
// extension's echo of Anthropic's thinking): thinking blocks with their
// signature and redacted_thinking blocks with their data, kept as the
// client's JSON so they reach Anthropic unmodified. A block whose
// signature (or data) is empty or a gateway envelope (another upstream's
// reasoning) is dropped: Anthropic would refuse it.
func thinkingBlocks(p string, list gjson.Result) ([]block, error) {
	if !present(list) {
		return nil, nil
	}
	if !list.IsArray() {
		return nil, refuse(p, "Expected an array of thinking blocks.")
	}
	var out []block
	for j, tb := range list.Array() {
		bp := fmt.Sprintf("%s[%d]", p, j)
		b, err := thinkingBlock(bp, tb)
		if err != nil {
			return nil, err
		}
		if b.Type != "" {
			out = append(out, b)
		}
	}
	return out, nil
}

// thinkingBlock reads one block; a zero block when it is to be dropped.
func thinkingBlock(p string, tb gjson.Result) (block, error) {
	typ, key := tb.Get("type").Str, ""
	switch typ {
	case "thinking":
		key = "signature"
	case "redacted_thinking":
		key = "data"
	default:
		return block{}, refuse(p+".type", "Expected thinking or redacted_thinking, got %s.", tb.Get("type").Raw)
	}
	proof := tb.Get(key)
	if proof.Exists() && proof.Type != gjson.String {
		return block{}, refuse(p+"."+key, "Expected a string.")
	}
	text := tb.Get("thinking")
	if typ == "thinking" && text.Type != gjson.String {
		return block{}, refuse(p+".thinking", "Expected a string.")
	}
	if proof.Str == "" || envelope.Is(proof.Str) {
		return block{}, nil
	}
	if typ == "redacted_thinking" {
		return block{Type: typ, Data: json.RawMessage(proof.Raw)}, nil
	}
	return block{Type: typ, Thinking: json.RawMessage(text.Raw), Signature: json.RawMessage(proof.Raw)}, nil
}

// reasoningSeparator goes between the texts of two thinking blocks in
// reasoning_content, whole and streamed alike.
const reasoningSeparator = "\n\n"

// thoughts collects an answer's thinking blocks.
type thoughts struct {
	text   string            // the thinking texts, joined by reasoningSeparator
	blocks []json.RawMessage // every thinking and redacted_thinking block, as received
}

func (t *thoughts) add(blk gjson.Result) {
	t.blocks = append(t.blocks, json.RawMessage(blk.Raw))
	if s := blk.Get("thinking").Str; s != "" {
		if t.text != "" {
			t.text += reasoningSeparator
		}
		t.text += s
	}
}
