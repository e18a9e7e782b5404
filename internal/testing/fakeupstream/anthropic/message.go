package fakeanthropic

import (
	"encoding/json"
	"strings"
)

// The response shapes of the Messages API (fixtures messages_response_*).

type messageOut struct {
	ID           string       `json:"id"`
	Type         string       `json:"type"`
	Role         string       `json:"role"`
	Model        string       `json:"model"`
	Content      []contentOut `json:"content"`
	StopReason   *string      `json:"stop_reason"`
	StopSequence *string      `json:"stop_sequence"`
	Usage        usageOut     `json:"usage"`
}

type contentOut struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	Thinking  *string         `json:"thinking,omitempty"`
	Signature *string         `json:"signature,omitempty"`
	Data      string          `json:"data,omitempty"`
}

type usageOut struct {
	InputTokens   int            `json:"input_tokens"`
	CacheCreation int            `json:"cache_creation_input_tokens"`
	CacheRead     int            `json:"cache_read_input_tokens"`
	OutputTokens  int            `json:"output_tokens"`
	OutputDetails *outputDetails `json:"output_tokens_details,omitempty"`
	ServiceTier   string         `json:"service_tier,omitempty"`
}

// outputDetails splits the output tokens; sent when the model thought.
type outputDetails struct {
	ThinkingTokens int `json:"thinking_tokens"`
}

// messages answers POST /v1/messages.
func (s *Server) messages(c *call) {
	q, err := parse(c.body)
	if err != nil {
		c.fail(err)
		return
	}
	t := findTrigger(q.lastUser)
	switch {
	case t == "hang":
		<-c.r.Context().Done()
		return
	case strings.HasPrefix(t, "error:"):
		c.fail(triggerError(strings.TrimPrefix(t, "error:"), q.model))
		return
	}
	a := s.answerOf(q)
	m := s.message(q, a)
	if q.stream {
		s.stream(c, m, a, t == "midstream-error")
		return
	}
	b, err := json.Marshal(m)
	if err != nil {
		c.fail(err)
		return
	}
	c.json(b)
}

// message renders the complete answer.
func (s *Server) message(q *request, a *answer) *messageOut {
	m := &messageOut{ID: s.NewID("msg_fake"), Type: "message", Role: "assistant", Model: q.model,
		Content: []contentOut{}, StopReason: &a.stop, Usage: s.usage(q, a)}
	if a.stopSeq != "" {
		m.StopSequence = &a.stopSeq
	}
	if th := a.think; th != nil {
		if th.redacted != "" {
			m.Content = append(m.Content, contentOut{Type: "redacted_thinking", Data: th.redacted})
		}
		text := th.text()
		m.Content = append(m.Content, contentOut{Type: "thinking", Thinking: &text, Signature: &th.signature})
	}
	if len(a.text) > 0 {
		text := strings.Join(a.text, "")
		m.Content = append(m.Content, contentOut{Type: "text", Text: &text})
	}
	for _, cl := range a.calls {
		m.Content = append(m.Content, contentOut{Type: "tool_use", ID: cl.id, Name: cl.name, Input: json.RawMessage(cl.input)})
	}
	return m
}

// usage splits the prompt into uncached and cache-read tokens, and tells
// the thinking tokens of an answer that thought.
func (s *Server) usage(q *request, a *answer) usageOut {
	read := min(s.opt.CacheReadTokens, q.prompt)
	u := usageOut{InputTokens: q.prompt - read, CacheRead: read, OutputTokens: a.output, ServiceTier: "standard"}
	if a.think != nil {
		u.OutputDetails = &outputDetails{ThinkingTokens: a.think.tokens}
	}
	return u
}
