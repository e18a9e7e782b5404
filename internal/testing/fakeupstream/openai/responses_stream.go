package fakeopenai

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/testing/fakeupstream"
)

// respEvents writes the events of one Responses stream: "event:" and
// "data:" lines, sequence numbers from 0, no [DONE].
type respEvents struct {
	e   *fakeupstream.Events
	seq int
	buf []byte
}

// send writes one event: its type, its sequence number, then the fields
// given as name, value pairs, in order.
func (w *respEvents) send(typ string, kv ...any) error {
	b := append(w.buf[:0], "event: "...)
	b = append(b, typ...)
	b = append(b, "\ndata: {\"type\":"...)
	b = gjson.AppendJSONString(b, typ)
	b = append(b, `,"sequence_number":`...)
	b = strconv.AppendInt(b, int64(w.seq), 10)
	for i := 0; i+1 < len(kv); i += 2 {
		v, err := json.Marshal(kv[i+1])
		if err != nil {
			return err
		}
		b = append(b, ',')
		b = gjson.AppendJSONString(b, kv[i].(string))
		b = append(b, ':')
		b = append(b, v...)
	}
	w.buf = append(b, "}\n\n"...)
	w.seq++
	return w.e.Send(w.buf)
}

// nestedError is the "error" object of an error event, as OpenAI nests it.
type nestedError struct {
	Type    string  `json:"type"`
	Code    string  `json:"code"`
	Message string  `json:"message"`
	Param   *string `json:"param"`
}

// midstreamMessage is the error of "fake:midstream-error".
const midstreamMessage = "The upstream model provider failed while generating the response."

// streamResponse streams a (inbound-apis 3.3): created, in_progress, the
// reasoning item, the calls or the message, then the terminal event. With
// trigger midstream-error a text answer stops after two deltas with an
// error event and response.failed; with midstream-hang it sends nothing
// more until the client goes away.
func (s *Server) streamResponse(c *call, q *respRequest, a *respAnswer, trigger string) {
	midstream := len(a.calls) == 0 && strings.HasPrefix(trigger, "midstream-")
	if midstream {
		a.pieces, a.cut = a.pieces[:min(2, len(a.pieces))], false
	}
	w := &respEvents{e: c.startStream(s.opt.TokenDelay)}
	start := q.response(a, "in_progress")
	if w.send("response.created", "response", start) != nil || w.send("response.in_progress", "response", start) != nil {
		return
	}
	idx := 0
	if q.reasoning {
		if w.reasoning(q, a, idx) != nil {
			return
		}
		idx++
	}
	for k := range a.calls {
		if w.call(a, k, idx+k) != nil {
			return
		}
	}
	if len(a.calls) == 0 && w.message(a, idx, !midstream) != nil {
		return
	}
	switch trigger {
	case "midstream-error":
		if midstream {
			w.send("error", "code", "server_error", "message", midstreamMessage, "param", nil,
				"error", nestedError{Type: "server_error", Code: "server_error", Message: midstreamMessage})
			w.send("response.failed", "response", q.response(a, "failed"))
			return
		}
	case "midstream-hang":
		if midstream {
			<-c.r.Context().Done()
			return
		}
	}
	status := statusOf(a)
	w.send("response."+status, "response", q.response(a, status))
}

func (w *respEvents) reasoning(q *respRequest, a *respAnswer, idx int) error {
	id := a.ids.reasoning()
	if err := w.send("response.output_item.added", "output_index", idx, "item", q.reasoningItem(a, false)); err != nil {
		return err
	}
	if a.summary != nil {
		part := summaryPart{Type: "summary_text"}
		if err := w.send("response.reasoning_summary_part.added", "item_id", id, "output_index", idx, "summary_index", 0, "part", part); err != nil {
			return err
		}
		for _, p := range a.summary {
			if err := w.send("response.reasoning_summary_text.delta", "item_id", id, "output_index", idx, "summary_index", 0, "delta", p); err != nil {
				return err
			}
		}
		part.Text = summaryText
		if err := w.send("response.reasoning_summary_text.done", "item_id", id, "output_index", idx, "summary_index", 0, "text", summaryText); err != nil {
			return err
		}
		if err := w.send("response.reasoning_summary_part.done", "item_id", id, "output_index", idx, "summary_index", 0, "part", part); err != nil {
			return err
		}
	}
	return w.send("response.output_item.done", "output_index", idx, "item", q.reasoningItem(a, true))
}

func (w *respEvents) call(a *respAnswer, k, idx int) error {
	id, args := a.ids.call(k), a.calls[k].args
	if err := w.send("response.output_item.added", "output_index", idx, "item", a.callItem(k, "in_progress", "")); err != nil {
		return err
	}
	for _, p := range argPieces(args) {
		if err := w.send("response.function_call_arguments.delta", "item_id", id, "output_index", idx, "delta", p); err != nil {
			return err
		}
	}
	if err := w.send("response.function_call_arguments.done", "item_id", id, "output_index", idx, "name", a.calls[k].name, "arguments", args); err != nil {
		return err
	}
	return w.send("response.output_item.done", "output_index", idx, "item", a.callItem(k, "completed", args))
}

// message streams the message item; unless finish, it stops after the
// deltas (a stream about to fail).
func (w *respEvents) message(a *respAnswer, idx int, finish bool) error {
	id := a.ids.message()
	if err := w.send("response.output_item.added", "output_index", idx, "item", a.messageItem("in_progress", []outputText{})); err != nil {
		return err
	}
	if err := w.send("response.content_part.added", "item_id", id, "output_index", idx, "content_index", 0, "part", newOutputText("")); err != nil {
		return err
	}
	noLogprobs := []struct{}{}
	for _, p := range a.pieces {
		if err := w.send("response.output_text.delta", "item_id", id, "output_index", idx, "content_index", 0, "delta", p, "logprobs", noLogprobs); err != nil {
			return err
		}
	}
	if !finish {
		return nil
	}
	text := strings.Join(a.pieces, "")
	if err := w.send("response.output_text.done", "item_id", id, "output_index", idx, "content_index", 0, "text", text, "logprobs", noLogprobs); err != nil {
		return err
	}
	part := newOutputText(text)
	if err := w.send("response.content_part.done", "item_id", id, "output_index", idx, "content_index", 0, "part", part); err != nil {
		return err
	}
	status := "completed"
	if a.cut {
		status = "incomplete"
	}
	return w.send("response.output_item.done", "output_index", idx, "item", a.messageItem(status, []outputText{part}))
}
