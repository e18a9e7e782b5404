package fakeopenai

import (
	"encoding/base64"
	"strings"
)

// output is the answer's items in status ("failed": the message as far
// as the stream got, incomplete).
func (q *respRequest) output(a *respAnswer, status string) []respItem {
	var out []respItem
	if q.reasoning {
		out = append(out, q.reasoningItem(a, true))
	}
	for k := range a.calls {
		out = append(out, a.callItem(k, "completed", a.calls[k].args))
	}
	if len(a.calls) == 0 {
		itemStatus := "completed"
		if status != "completed" {
			itemStatus = "incomplete"
		}
		out = append(out, a.messageItem(itemStatus, []outputText{newOutputText(strings.Join(a.pieces, ""))}))
	}
	return out
}

// reasoningItem is the reasoning item as added (empty summary) or done.
func (q *respRequest) reasoningItem(a *respAnswer, done bool) respItem {
	it := respItem{ID: a.ids.reasoning(), Type: "reasoning", Summary: &[]summaryPart{}}
	if q.encrypted {
		enc := "gAAAAA" + base64.StdEncoding.EncodeToString([]byte("fake reasoning state of "+it.ID))
		it.EncryptedContent = &enc
	}
	if done && a.summary != nil {
		it.Summary = &[]summaryPart{{Type: "summary_text", Text: summaryText}}
	}
	return it
}

func (a *respAnswer) messageItem(status string, content []outputText) respItem {
	return respItem{ID: a.ids.message(), Type: "message", Status: status, Content: &content, Role: "assistant"}
}

func (a *respAnswer) callItem(k int, status, args string) respItem {
	return respItem{ID: a.ids.call(k), Type: "function_call", Status: status, Arguments: &args,
		CallID: a.ids.callID(k), Name: a.calls[k].name}
}
