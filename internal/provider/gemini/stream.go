package gemini

import (
	"bytes"
	"context"
	"errors"
	"io"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/sse"
	"github.com/switchyard-gw/switchyard/internal/tokens"
)

var _ provider.Awaiter = (*stream)(nil)

// stream adapts a :streamGenerateContent?alt=sse body to provider.Stream:
// each Gemini event becomes OpenAI chunks as it arrives.
type stream struct {
	t      *translator
	ctx    context.Context // the upstream call's, to classify read errors
	body   io.ReadCloser
	rd     *sse.Reader
	cancel context.CancelFunc

	head    []byte // `{"id":…,"choices":[` shared by every chunk
	choices map[int]*choiceState
	queue   [][]byte // chunks ready for the client
	usage   usage
	counted bool // usage is known (reported, or estimated at the end)
	answer  tokens.Text
	done    bool  // the upstream body ended well
	err     error // sticky failure
}

// choiceState follows one candidate across events.
type choiceState struct {
	started  bool // the role chunk went out
	finished bool
	calls    int // function calls so far: the next tool-call index
}

func newStream(t *translator, ctx context.Context, body io.ReadCloser, cancel context.CancelFunc) *stream {
	rd := sse.NewReader(body, 0)
	rd.AcceptBareJSON() // an error in the middle may come without "data:"
	return &stream{t: t, ctx: ctx, body: body, rd: rd, cancel: cancel, choices: map[int]*choiceState{}}
}

// Next returns the next chat.completion.chunk, io.EOF after the last, or
// the upstream's failure.
func (s *stream) Next() ([]byte, error) {
	for len(s.queue) == 0 {
		switch {
		case s.err != nil:
			return nil, s.err
		case s.done:
			return nil, io.EOF
		}
		if err := s.read(); err != nil {
			s.err = err
			s.settle()
		}
	}
	c := s.queue[0]
	s.queue = s.queue[1:]
	return c, nil
}

// Await waits for the upstream's next bytes when Next would, no chunk
// being ready (provider.Awaiter).
func (s *stream) Await() {
	if len(s.queue) == 0 && s.err == nil && !s.done {
		s.rd.Await()
	}
}

// read handles one upstream event, or the end of the body.
func (s *stream) read() error {
	ev, err := s.rd.Next()
	switch {
	case errors.Is(err, io.EOF):
		s.done = true
		return s.end()
	case errors.Is(err, sse.ErrTooLarge):
		return provider.Unreadable(s.t.name, err)
	case err != nil:
		return provider.FromTransport(s.ctx, s.t.name, err)
	}
	return s.event(ev.Data)
}

// event translates one GenerateContentResponse.
func (s *stream) event(data []byte) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	root := gjson.ParseBytes(data)
	if !gjson.ValidBytes(data) || !root.IsObject() {
		return provider.Unreadable(s.t.name, errors.New("invalid JSON in stream"))
	}
	if root.Get("error").Exists() {
		return streamError(s.t.name, data)
	}
	if s.head == nil {
		s.head = s.t.chunkHead(root.Get("responseId").String())
	}
	if u, ok := usageOf(root.Get("usageMetadata")); ok {
		s.usage, s.counted = u, true // running counts: the last one wins
	}
	cands := list(root.Get("candidates"))
	if len(cands) == 0 {
		if block := root.Get("promptFeedback.blockReason").String(); block != "" {
			return s.blocked(block)
		}
	}
	for _, c := range cands {
		if err := s.candidate(c); err != nil {
			return err
		}
	}
	return nil
}

// state returns a candidate's state, refusing more candidates than
// Gemini can send.
func (s *stream) state(index int) (*choiceState, error) {
	st, ok := s.choices[index]
	if !ok {
		if len(s.choices) == maxCandidates {
			return nil, provider.Unreadable(s.t.name, errors.New("too many candidates in stream"))
		}
		st = &choiceState{}
		s.choices[index] = st
	}
	return st, nil
}

func (s *stream) candidate(c gjson.Result) error {
	index := candidateIndex(c)
	st, err := s.state(index)
	if err != nil || st.finished {
		return err
	}
	for _, p := range list(c.Get("content.parts")) {
		txt := p.Get("text")
		switch fc := p.Get("functionCall"); {
		case p.Get("thought").Bool():
			if txt.Str != "" {
				s.text(index, st, "reasoning_content", txt.Str)
			}
		case fc.IsObject():
			s.call(index, st, s.t.call(fc, p.Get("thoughtSignature").String()))
		case txt.Type == gjson.String && txt.Str != "":
			s.text(index, st, "content", txt.Str)
		}
	}
	if r := c.Get("finishReason").String(); r != "" {
		s.finish(index, st, finishReason(r, st.calls > 0, s.t.legacy))
	}
	return nil
}

// text sends a piece of the answer (key content) or of its thoughts
// (reasoning_content).
func (s *stream) text(index int, st *choiceState, key, text string) {
	s.role(index, st)
	s.answer.Add(text)
	s.chunk(index, appendField(nil, key, text), "")
}

// call sends a whole function call as one tool-call delta at the next
// index of its choice (the index runs across events). Legacy clients get
// the first call as function_call; later ones are dropped, as they are
// for clients that asked for no parallel calls.
func (s *stream) call(index int, st *choiceState, c call) {
	k := st.calls
	st.calls++
	s.answer.Add(c.args)
	if s.t.oneCall && k > 0 {
		return
	}
	var d []byte
	switch {
	case s.t.legacy:
		d = appendFunction([]byte(`"function_call":`), c)
	default:
		d = appendToolCall([]byte(`"tool_calls":[`), k, c)
		d = append(d, ']')
	}
	if !st.started {
		st.started = true
		d = append(append([]byte(`{"role":"assistant","content":null,`), d...), `,"refusal":null}`...)
	} else {
		d = append(append([]byte{'{'}, d...), '}')
	}
	s.chunk(index, d, "")
}

func (s *stream) finish(index int, st *choiceState, reason string) {
	s.role(index, st)
	st.finished = true
	s.chunk(index, []byte("{}"), reason)
}

// blocked answers a prompt Gemini refused to answer: choice 0 gets the
// reason as its refusal and finishes with content_filter.
func (s *stream) blocked(reason string) error {
	st, err := s.state(0)
	if err != nil || st.finished {
		return err
	}
	s.role(0, st)
	s.chunk(0, appendField(nil, "refusal", blockMessage(reason)), "")
	s.finish(0, st, "content_filter")
	return nil
}

// role sends a choice's first chunk, as OpenAI does for text.
func (s *stream) role(index int, st *choiceState) {
	if !st.started {
		st.started = true
		s.chunk(index, []byte(`{"role":"assistant","content":"","refusal":null}`), "")
	}
}

// end checks that the upstream finished every choice, then queues the
// usage chunk the client asked for.
func (s *stream) end() error {
	if len(s.choices) == 0 {
		return provider.Unreadable(s.t.name, errors.New("stream ended without an answer"))
	}
	for _, st := range s.choices {
		if !st.finished {
			return provider.Unreadable(s.t.name, errors.New("stream ended before its finishReason"))
		}
	}
	s.settle()
	if s.t.r.IncludeUsage {
		b := append(append([]byte(nil), s.head...), `],"usage":`...)
		s.queue = append(s.queue, append(appendUsage(b, s.usage), '}'))
	}
	return nil
}

// settle estimates the usage when Gemini reported none.
func (s *stream) settle() {
	if !s.counted {
		s.usage, s.counted = estimate(s.t.r, &s.answer), true
	}
}

// chunk queues one chunk for choice index; finish "" is null.
func (s *stream) chunk(index int, delta []byte, finish string) {
	b := make([]byte, 0, len(s.head)+len(delta)+96)
	b = append(b, s.head...)
	b = append(b, `{"index":`...)
	b = appendInt(b, index)
	b = append(b, `,"delta":`...)
	b = append(b, delta...)
	b = append(b, `,"logprobs":null,"finish_reason":`...)
	b = appendNullable(b, finish)
	b = append(b, "}]"...)
	if s.t.r.IncludeUsage {
		b = append(b, `,"usage":null`...)
	}
	s.queue = append(s.queue, append(b, '}'))
}

// Usage returns the usage known so far; complete after io.EOF. Before
// Gemini has reported any (a client that went away, a shutdown) it is the
// gateway's count of what was sent, flagged as an estimate, so that
// partial usage is billed.
func (s *stream) Usage() provider.Usage {
	switch {
	case s.done:
		return s.usage.Usage
	case !s.counted:
		return estimate(s.t.r, &s.answer).Usage
	}
	u := s.usage.Usage // running counts, which may lag what was sent
	if n := s.answer.Count(s.t.r.Model); n > u.CompletionTokens {
		u.CompletionTokens, u.TotalTokens, u.Estimated = n, u.PromptTokens+n, true
	}
	return u
}

// Close releases the upstream connection. After a complete stream the
// rest of the body is read so the connection can be reused.
func (s *stream) Close() error {
	s.rd.Close()
	if s.done {
		io.CopyN(io.Discard, s.body, 64<<10)
	}
	err := s.body.Close()
	if s.cancel != nil {
		s.cancel()
	}
	return err
}

// appendField renders {"<key>":"<value>"}.
func appendField(b []byte, key, value string) []byte {
	b = append(b, `{"`...)
	b = append(b, key...)
	b = append(b, `":`...)
	b = gjson.AppendJSONString(b, value)
	return append(b, '}')
}

// chunkHead is the start every chunk of a stream shares.
func (t *translator) chunkHead(responseID string) []byte {
	b := append([]byte(`{"id":`), gjson.AppendJSONString(nil, t.chatID(responseID))...)
	b = append(b, `,"object":"chat.completion.chunk","created":`...)
	b = appendInt(b, int(t.env.now().Unix()))
	b = append(b, `,"model":`...)
	b = gjson.AppendJSONString(b, t.r.Model)
	return append(b, `,"choices":[`...)
}
