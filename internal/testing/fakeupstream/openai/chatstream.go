package fakeopenai

import (
	"encoding/json"
	"strconv"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/testing/fakeupstream"
)

// delta is one step of a choice's stream.
type delta struct {
	kind deltaKind
	text string // content or arguments fragment
	call int    // tool call index
}

type deltaKind uint8

const (
	roleText     deltaKind = iota // role chunk of a text answer (content "")
	textPiece                     // one word of content
	roleCall                      // role chunk carrying the first fragment of call 0
	callHead                      // first fragment (id, type, name) of call k > 0
	callArgs                      // an arguments fragment of call k
	roleFunction                  // role chunk carrying function_call.name
	functionArgs                  // an arguments fragment of function_call
)

// deltas lists the steps every choice of a stream goes through before its
// finish chunk.
func (a *answer) deltas() []delta {
	var out []delta
	switch {
	case a.legacy:
		out = append(out, delta{kind: roleFunction})
		for _, p := range argPieces(a.calls[0].args) {
			out = append(out, delta{kind: functionArgs, text: p})
		}
	case len(a.calls) > 0:
		for k, c := range a.calls {
			kind := callHead
			if k == 0 {
				kind = roleCall
			}
			out = append(out, delta{kind: kind, call: k})
			for _, p := range argPieces(c.args) {
				out = append(out, delta{kind: callArgs, text: p, call: k})
			}
		}
	default:
		out = make([]delta, 0, len(a.pieces)+1)
		out = append(out, delta{kind: roleText})
		for _, p := range a.pieces {
			out = append(out, delta{kind: textPiece, text: p})
		}
	}
	return out
}

// appendDelta renders d for one choice whose tool call ids are ids.
func appendDelta(b []byte, d delta, a *answer, ids []string) []byte {
	switch d.kind {
	case roleText:
		return append(b, `{"role":"assistant","content":"","refusal":null}`...)
	case textPiece:
		b = append(b, `{"content":`...)
		b = gjson.AppendJSONString(b, d.text)
		return append(b, '}')
	case roleCall:
		b = append(b, `{"role":"assistant","content":null,"tool_calls":[`...)
		b = appendCallHead(b, d.call, ids[d.call], a.calls[d.call].name)
		return append(b, `],"refusal":null}`...)
	case callHead:
		b = append(b, `{"tool_calls":[`...)
		b = appendCallHead(b, d.call, ids[d.call], a.calls[d.call].name)
		return append(b, "]}"...)
	case callArgs:
		b = append(b, `{"tool_calls":[{"index":`...)
		b = strconv.AppendInt(b, int64(d.call), 10)
		b = append(b, `,"function":{"arguments":`...)
		b = gjson.AppendJSONString(b, d.text)
		return append(b, "}}]}"...)
	case roleFunction:
		b = append(b, `{"role":"assistant","content":null,"function_call":{"name":`...)
		b = gjson.AppendJSONString(b, a.calls[0].name)
		return append(b, `,"arguments":""},"refusal":null}`...)
	}
	b = append(b, `{"function_call":{"arguments":`...)
	b = gjson.AppendJSONString(b, d.text)
	return append(b, "}}"...)
}

func appendCallHead(b []byte, index int, id, name string) []byte {
	b = append(b, `{"index":`...)
	b = strconv.AppendInt(b, int64(index), 10)
	b = append(b, `,"id":`...)
	b = gjson.AppendJSONString(b, id)
	b = append(b, `,"type":"function","function":{"name":`...)
	b = gjson.AppendJSONString(b, name)
	return append(b, `,"arguments":""}}`...)
}

// streamChat streams a, interleaving the n choices step by step. With
// trigger midstream-error it stops after the role chunk and two more
// chunks with an error event and no [DONE]; with midstream-hang it sends
// nothing more until the client goes away.
func (s *Server) streamChat(c *call, q *chatRequest, a *answer, trigger string) {
	midstream := trigger == "midstream-error" || trigger == "midstream-hang"
	k := newChunker(s.NewID("chatcmpl-fake"), "chat.completion.chunk", q.model, q.tier, s.usageMode(q.usage))
	ids := make([][]string, q.n)
	for i := range ids {
		for range a.calls {
			ids[i] = append(ids[i], s.NewID("call_fake"))
		}
	}
	steps := a.deltas()
	if midstream {
		steps = steps[:min(len(steps), 3)]
	}
	e := c.startStream(s.opt.TokenDelay)
	for _, d := range steps {
		for i := range q.n {
			k.begin(i)
			k.buf = appendDelta(k.buf, d, a, ids[i])
			var lp []byte
			if q.logprobs && d.kind == textPiece {
				lp = appendLogprobs(nil, []string{d.text}, q.topLogprobs)
			}
			if e.Send(k.end(lp, "", nil)) != nil {
				return
			}
		}
	}
	switch trigger {
	case "midstream-error":
		e.Send(midstreamError)
		return
	case "midstream-hang":
		<-c.r.Context().Done()
		return
	}
	s.finishChat(e, k, q, a, c.reqID)
}

// finishChat sends each choice's finish chunk, the usage chunk when asked,
// and [DONE].
func (s *Server) finishChat(e *fakeupstream.Events, k *chunker, q *chatRequest, a *answer, reqID string) {
	u := q.usageOf(a)
	for i := range q.n {
		var xg []byte
		if k.mode == groqUsage && i == q.n-1 {
			xg = xGroq(reqID, u.PromptTokens, u.CompletionTokens)
		}
		k.begin(i)
		k.buf = append(k.buf, "{}"...)
		if e.Send(k.end(nil, a.finish, xg)) != nil {
			return
		}
	}
	if k.mode == usageNull {
		b, _ := json.Marshal(u) // a struct of ints cannot fail to marshal
		if e.Send(k.usage(b)) != nil {
			return
		}
	}
	e.Send(done)
}
