package fakegemini

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/switchyard-gw/switchyard/internal/testing/fakeupstream"
)

// The response shapes, in the order Google writes their fields.

type response struct {
	Candidates     []candidate     `json:"candidates,omitempty"`
	PromptFeedback *promptFeedback `json:"promptFeedback,omitempty"`
	UsageMetadata  usageMetadata   `json:"usageMetadata"`
	ModelVersion   string          `json:"modelVersion"`
	ResponseID     string          `json:"responseId"`
}

type candidate struct {
	Content      respContent `json:"content"`
	FinishReason string      `json:"finishReason,omitempty"`
	Index        *int        `json:"index,omitempty"`
}

type respContent struct {
	Parts []respPart `json:"parts"`
	Role  string     `json:"role"`
}

type respPart struct {
	Text             *string   `json:"text,omitempty"`
	Thought          bool      `json:"thought,omitempty"`
	FunctionCall     *respCall `json:"functionCall,omitempty"`
	ThoughtSignature string    `json:"thoughtSignature,omitempty"`
}

type respCall struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

type promptFeedback struct {
	BlockReason string `json:"blockReason"`
}

type usageMetadata struct {
	PromptTokenCount     int `json:"promptTokenCount"`
	CandidatesTokenCount int `json:"candidatesTokenCount,omitempty"`
	TotalTokenCount      int `json:"totalTokenCount"`
	ThoughtsTokenCount   int `json:"thoughtsTokenCount,omitempty"`
}

// step is what one candidate contributes to one response: parts and,
// on its last step, the finish reason.
type step struct {
	index  int
	parts  []respPart
	finish string
}

// all is the whole answer as one step per candidate.
func (a *answer) all() []step {
	out := make([]step, len(a.cands))
	for k, c := range a.cands {
		out[k] = step{index: k, parts: slices.Concat(thoughtParts(c.thought), textParts(c.pieces), callParts(c.calls)), finish: c.finish}
		if len(c.pieces) == 0 && len(c.calls) == 0 {
			out[k].parts = append(out[k].parts, textParts([]string{""})...)
		}
	}
	return out
}

func textParts(pieces []string) []respPart {
	if len(pieces) == 0 {
		return nil
	}
	s := strings.Join(pieces, "")
	return []respPart{{Text: &s}}
}

// thoughtParts is the thought summary as one part flagged thought.
func thoughtParts(pieces []string) []respPart {
	out := textParts(pieces)
	for i := range out {
		out[i].Thought = true
	}
	return out
}

func callParts(calls []fcall) []respPart {
	out := make([]respPart, len(calls))
	for i, c := range calls {
		out[i] = respPart{FunctionCall: &respCall{Name: c.name, Args: c.args}, ThoughtSignature: c.sig}
	}
	return out
}

// response renders steps; final responses carry the full usage, others
// the prompt count only (as Gemini's streams do). Streams leave out index
// 0, as Gemini does.
func (a *answer) response(steps []step, final, index bool) response {
	r := response{ModelVersion: a.model, ResponseID: a.id, UsageMetadata: usageMetadata{PromptTokenCount: a.prompt, TotalTokenCount: a.prompt}}
	if a.blocked {
		r.PromptFeedback = &promptFeedback{BlockReason: "PROHIBITED_CONTENT"}
		return r
	}
	for _, s := range steps {
		c := candidate{Content: respContent{Parts: s.parts, Role: "model"}, FinishReason: s.finish}
		if idx := s.index; idx > 0 || index {
			c.Index = &idx
		}
		r.Candidates = append(r.Candidates, c)
	}
	if final {
		out := 0
		for _, c := range a.cands {
			out += len(strings.Fields(strings.Join(c.pieces, ""))) + 10*len(c.calls)
		}
		r.UsageMetadata.CandidatesTokenCount = out
		r.UsageMetadata.ThoughtsTokenCount = a.thoughts
		r.UsageMetadata.TotalTokenCount = a.prompt + out + a.thoughts
	}
	return r
}

// events splits the answer into stream events. Thoughts come first, a
// piece per event. Text goes a piece per event, the last with the finish
// reason. Calls come whole: Gemini 2 sends them with STOP in one event;
// Gemini 3 sends each call in its own event, then an empty text with STOP
// (fixture stream_function_call_split_finish).
func (a *answer) events() [][]step {
	if a.blocked {
		return [][]step{nil}
	}
	return append(a.thoughtEvents(), a.answerEvents()...)
}

// thoughtEvents streams the thought summaries, a piece per event.
func (a *answer) thoughtEvents() [][]step {
	var out [][]step
	for i := range len(a.cands[0].thought) {
		var ev []step
		for k, c := range a.cands {
			ev = append(ev, step{index: k, parts: thoughtParts(c.thought[i : i+1])})
		}
		out = append(out, ev)
	}
	return out
}

// answerEvents streams the text or the calls.
func (a *answer) answerEvents() [][]step {
	switch {
	case len(a.cands[0].calls) > 0 && needsSignature(a.model):
		return a.splitCalls()
	case len(a.cands[0].calls) > 0:
		ev := a.all()
		for k := range ev {
			ev[k].parts = slices.DeleteFunc(ev[k].parts, func(p respPart) bool { return p.Thought })
		}
		return [][]step{ev}
	}
	var out [][]step
	n := 1
	for _, c := range a.cands {
		n = max(n, len(c.pieces))
	}
	for i := range n {
		var ev []step
		for k, c := range a.cands {
			s := step{index: k}
			if i < len(c.pieces) {
				s.parts = textParts(c.pieces[i : i+1])
			}
			if i == max(len(c.pieces), 1)-1 {
				s.finish = c.finish
				if s.parts == nil {
					s.parts = textParts([]string{""})
				}
			}
			if s.parts != nil {
				ev = append(ev, s)
			}
		}
		out = append(out, ev)
	}
	return out
}

// splitCalls is Gemini 3's way: one event per call, then STOP.
func (a *answer) splitCalls() [][]step {
	var out [][]step
	for i := range a.cands[0].calls {
		var ev []step
		for k, c := range a.cands {
			ev = append(ev, step{index: k, parts: callParts(c.calls[i : i+1])})
		}
		out = append(out, ev)
	}
	var last []step
	for k := range a.cands {
		last = append(last, step{index: k, parts: textParts([]string{""}), finish: "STOP"})
	}
	return append(out, last)
}

// stream writes the answer as :streamGenerateContent?alt=sse events. The
// triggers midstream-error and midstream-bare-error stop it after two
// events with an error object, as a data event or a bare block.
func (c *call) stream(a *answer, trigger string) {
	h := c.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	c.w.WriteHeader(http.StatusOK)
	e := fakeupstream.NewEvents(c.w, c.r, c.s.opt.TokenDelay)
	sep := "\r\n\r\n"
	if c.s.opt.LF {
		sep = "\n\n"
	}
	evs := a.events()
	for i, ev := range evs {
		if i == 2 && (trigger == "midstream-error" || trigger == "midstream-bare-error") {
			b := []byte("data: " + string(errInternal.body()))
			if trigger == "midstream-bare-error" {
				// As Google's SDKs expect it may come: the error as
				// its own block, pretty-printed, without "data:".
				var pretty bytes.Buffer
				json.Indent(&pretty, errInternal.body(), "", "  ")
				b = bytes.ReplaceAll(pretty.Bytes(), []byte("\n"), []byte(sep[:len(sep)/2]))
			}
			e.Send(append(b, sep...))
			return
		}
		b, _ := json.Marshal(a.response(ev, i == len(evs)-1, false))
		if e.Send([]byte("data: "+string(b)+sep)) != nil {
			return
		}
	}
}
