package responses

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/provider"
)

// Translator turns chat completions answers into Responses API answers
// for one request; it implements gateway.Translator.
type Translator struct {
	r         *Request
	id        string
	createdAt int64
	// newID returns a fresh item id with the given prefix (tests fix it).
	newID func(prefix string) string
	// now is the clock of completed_at.
	now func() time.Time
}

// NewTranslator returns the translator of r's answers: id is the
// response id ("resp_…", chosen by the caller) and createdAt its creation
// time in unix seconds.
func (r *Request) NewTranslator(id string, createdAt int64) *Translator {
	return &Translator{r: r, id: id, createdAt: createdAt, newID: randomID, now: time.Now}
}

// Response turns a whole chat completion into a Response object.
func (t *Translator) Response(resp *provider.Response) (*provider.Response, error) {
	if !gjson.ValidBytes(resp.Body) {
		return nil, fmt.Errorf("responses: translate chat completion: invalid JSON")
	}
	body := gjson.ParseBytes(resp.Body)
	choice := body.Get("choices.0")
	x := t.r.echo(t.id, t.createdAt, t.model(body.Get("model").Str))
	x.finish(choice.Get("finish_reason").Str, body.Get("service_tier").Str, t.now().Unix())
	x.Output = t.items(choice.Get("message"), x.Status)
	x.Usage = usageOf(body.Get("usage"), resp.Usage)
	b, err := json.Marshal(x)
	if err != nil {
		return nil, fmt.Errorf("responses: encode response: %w", err)
	}
	return &provider.Response{Body: b, Usage: resp.Usage, Header: resp.Header}, nil
}

// model is the model the answer names, else the one asked for.
func (t *Translator) model(answered string) string {
	if answered != "" {
		return answered
	}
	return t.r.Model
}

// items returns the output items of a chat message: a reasoning item
// when it thought, a message when it said something (or nothing else),
// then one function_call per tool call.
func (t *Translator) items(msg gjson.Result, status string) []any {
	itemStatus := "completed"
	if status == "incomplete" {
		itemStatus = "incomplete"
	}
	out := []any{}
	thought, blocks := msg.Get("reasoning_content").Str, msg.Get("thinking_blocks").Array()
	if thought != "" || len(blocks) > 0 {
		rs := newReasoning(t.newID("rs_"))
		if thought != "" {
			rs.Summary = append(rs.Summary, summaryText{"summary_text", thought})
		}
		raw := make([]json.RawMessage, len(blocks))
		for i, b := range blocks {
			raw[i] = json.RawMessage(b.Raw)
		}
		rs.EncryptedContent = seal(raw)
		out = append(out, rs)
	}
	calls := msg.Get("tool_calls").Array()
	text, refusal := msg.Get("content").Str, msg.Get("refusal").Str
	if text != "" || refusal != "" || len(calls) == 0 {
		m := newMessage(t.newID("msg_"))
		m.Status = itemStatus
		if text != "" || refusal == "" {
			m.Content = append(m.Content, newText(text))
		}
		if refusal != "" {
			m.Content = append(m.Content, &refusalPart{"refusal", refusal})
		}
		out = append(out, m)
	}
	for _, c := range calls {
		id := c.Get("id").Str
		if id == "" {
			id = t.newID("call_")
		}
		out = append(out, &callItem{ID: t.newID("fc_"), Type: "function_call", Status: itemStatus,
			Arguments: c.Get("function.arguments").Str, CallID: id, Name: c.Get("function.name").Str})
	}
	return out
}
