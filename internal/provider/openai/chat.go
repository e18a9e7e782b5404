package openai

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/switchyard-gw/switchyard/internal/jsonscan"
	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/sse"
	"github.com/switchyard-gw/switchyard/internal/tokens"
)

// Chat answers a chat completion.
func (c *Client) Chat(ctx context.Context, r *provider.Request) (*provider.Response, error) {
	body, translated, err := c.chatBody(r, false)
	if err != nil {
		return nil, err
	}
	b, h, err := c.call(ctx, r, chatPath, body)
	if err != nil {
		return nil, err
	}
	us, err := answerUsage(r, b)
	if err != nil {
		return nil, provider.Unreadable(c.opt.Name, errors.New("invalid JSON"))
	}
	if translated {
		b = toolCallsToFunctionCall(b)
	}
	return &provider.Response{Body: clientModel(r, b), Usage: us, Header: h}, nil
}

// chatBody prepares the upstream body: the upstream model, the reasoning
// extension's message fields left out, usage asked for in streams, and
// functions translated for hosts that only know tools.
func (c *Client) chatBody(r *provider.Request, stream bool) (body []byte, translated bool, err error) {
	body, err = withModel(r)
	if err != nil {
		return nil, false, err
	}
	if body, err = stripReasoning(body); err != nil {
		return nil, false, err
	}
	if c.opt.TranslateFunctions && usesFunctions(body) {
		if body, err = functionsToTools(body); err != nil {
			return nil, false, err
		}
		translated = true
	}
	if stream {
		if body, err = askUsage(body); err != nil {
			return nil, false, err
		}
	}
	return body, translated, nil
}

// askUsage makes a stream request ask for the usage chunk: the gateway
// always needs the usage, and strips the chunk when the client did not ask.
func askUsage(body []byte) ([]byte, error) {
	opts := gjson.Get(jsonscan.View(body), "stream_options")
	if opts.Get("include_usage").Bool() {
		return body, nil
	}
	if !opts.Exists() {
		// The usual case, in one allocation: the option appended to a
		// copy of the object.
		end := bytes.LastIndexByte(body, '}')
		if head := bytes.TrimRight(body[:max(end, 0)], " \t\r\n"); len(head) > 1 && head[0] == '{' {
			out := make([]byte, 0, len(head)+len(usageOption))
			return append(append(out, head...), usageOption...), nil
		}
	}
	return sjson.SetBytes(body, "stream_options.include_usage", true)
}

// usageOption ends a stream request's body that has no stream_options.
const usageOption = `,"stream_options":{"include_usage":true}}`

// ChatStream streams a chat completion.
func (c *Client) ChatStream(ctx context.Context, r *provider.Request) (provider.Stream, error) {
	body, translated, err := c.chatBody(r, true)
	if err != nil {
		return nil, err
	}
	return c.stream(ctx, r, chatPath, body, translated)
}

// stream opens an upstream stream. The timeout bounds only the wait for
// the response headers; the stream then lasts as long as ctx.
func (c *Client) stream(ctx context.Context, r *provider.Request, path string, body []byte, translated bool) (provider.Stream, error) {
	resp, cancel, err := c.up.Open(ctx, c.url(path), body, r.RequestID)
	if err != nil {
		return nil, err
	}
	return &stream{
		c: c, r: r, resp: resp, cancel: cancel, translated: translated,
		rd: sse.NewReader(resp.Body, 0),
	}, nil
}

var _ provider.Awaiter = (*stream)(nil)

// stream adapts an upstream SSE body to provider.Stream.
type stream struct {
	c          *Client
	r          *provider.Request
	resp       *http.Response
	rd         *sse.Reader
	cancel     context.CancelFunc
	translated bool
	usage      provider.Usage
	gotUsage   bool // the upstream reported usage
	sawCall    bool // a translated tool call went by
	sentUsage  bool // a usage chunk went to the client
	text       tokens.Text
	head       chunkHead // id, created, model of the last chunk
	done       bool
}

// chunkHead is what a synthesized usage chunk repeats from the others.
type chunkHead struct {
	id, object, model string
	created           int64
}

// Next returns the next chunk for the client. It drops what the client did
// not ask for: the usage chunk and usage keys when include_usage was not
// requested, and non-OpenAI fields such as Groq's x_groq.
func (s *stream) Next() ([]byte, error) {
	for !s.done {
		ev, err := s.rd.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				// Some hosts end without [DONE]; the stream is still whole.
				s.done = true
				return s.finish()
			}
			return nil, provider.FromTransport(s.resp.Request.Context(), s.c.opt.Name, err)
		}
		data := ev.Data
		if len(data) == 0 {
			continue
		}
		if string(data) == "[DONE]" {
			s.done = true
			return s.finish()
		}
		chunk, keep, err := s.edit(data)
		if err != nil || keep {
			return chunk, err
		}
	}
	return nil, io.EOF
}

// Await waits for the upstream's next bytes (provider.Awaiter).
func (s *stream) Await() {
	if !s.done {
		s.rd.Await()
	}
}

// edit applies the client's view to one upstream chunk and reports whether
// the client gets it; an error event is the stream's error.
func (s *stream) edit(data []byte) ([]byte, bool, error) {
	// The chunk is read in place: nothing read from it is kept past this
	// call but through note, which copies, and the chunk is edited only
	// after everything is read.
	var m chunkMembers
	if err := m.read(data); err != nil {
		return nil, false, provider.Unreadable(s.c.opt.Name, errors.New("invalid JSON in stream"))
	}
	if m.failed != "" {
		return nil, false, streamError(s.c.opt.Name, data)
	}
	if isObject(m.usage) {
		s.usage, s.gotUsage = usageOf(gjson.Parse(m.usage)), true
	} else if m.groq != "" { // Groq's x_groq.usage; not looked for in every chunk
		if u := gjson.Get(m.groq, "usage"); u.IsObject() {
			s.usage, s.gotUsage = usageOf(u), true
		}
	}
	// The usage chunk is the one with choices: [] and a usage object; other
	// empty-choices chunks (Azure's prompt_filter_results) are not it.
	noChoices := m.noChoices
	isUsageChunk := noChoices && isObject(m.usage)
	if noChoices && (!isUsageChunk || !s.r.IncludeUsage) {
		return nil, false, nil // nothing the client asked for; strict clients choke on it
	}
	s.sentUsage = s.sentUsage || isUsageChunk
	rewrite := s.r.Model != s.r.UpstreamModel
	model := stringOf(m.model)
	if !isUsageChunk {
		hm := model
		if rewrite {
			hm = s.r.Model
		}
		s.head.note(stringOf(m.id), stringOf(m.object), hm, intOf(m.created))
	}
	rewrite = rewrite && model != s.r.Model
	if !s.gotUsage {
		m.count(&s.text)
	}
	return s.clientView(data, &m, rewrite), true, nil
}

// clientView edits a chunk, read into m, for the client: without the
// members it did not ask for, with legacy function calls when the
// request was translated, and with its model when rewrite.
func (s *stream) clientView(out []byte, m *chunkMembers, rewrite bool) []byte {
	if m.groq != "" {
		out, _ = sjson.DeleteBytes(out, "x_groq")
	}
	if !s.r.IncludeUsage && m.usage != "" {
		out = dropUsage(out)
	}
	if s.translated {
		out = toolCallDeltasToFunctionCall(out, &s.sawCall)
	}
	if rewrite {
		out = clientModel(s.r, out)
	}
	return out
}

// note makes the head the given one. The strings are read in place from
// a chunk whose buffer is reused, so they are copied, all three in one
// allocation, and only when one changed: within a stream they rarely do.
func (h *chunkHead) note(id, object, model string, created int64) {
	h.created = created
	if id == h.id && object == h.object && model == h.model {
		return
	}
	var b strings.Builder
	b.Grow(len(id) + len(object) + len(model))
	b.WriteString(id)
	b.WriteString(object)
	b.WriteString(model)
	all := b.String()
	h.id, all = all[:len(id)], all[len(id):]
	h.object, h.model = all[:len(object)], all[len(object):]
}

// nullUsageTail is how OpenAI ends every chunk of a stream that asked for
// usage; the client that did not ask must not see the key.
const nullUsageTail = `,"usage":null}`

// dropUsage removes the "usage" key, in place when it is the usual
// trailing null (no allocation on the hot path).
func dropUsage(b []byte) []byte {
	if bytes.HasSuffix(b, []byte(nullUsageTail)) {
		n := len(b) - len(nullUsageTail)
		b[n] = '}'
		return b[:n+1]
	}
	out, err := sjson.DeleteBytes(b, "usage")
	if err != nil {
		return b
	}
	return out
}

// finish ends the stream. When the upstream never reported usage, the
// gateway counts it; when the client asked for usage and the upstream sent
// no usage chunk (none at all, or Groq's x_groq.usage), the gateway sends
// one.
func (s *stream) finish() ([]byte, error) {
	if !s.gotUsage {
		s.usage = estimate(s.r, &s.text)
		s.gotUsage = true
	}
	if s.r.IncludeUsage && !s.sentUsage && s.head.id != "" {
		s.sentUsage = true
		return usageChunk(s.head, s.usage), nil
	}
	return nil, io.EOF
}

// Usage returns the usage so far. Before the stream has finished (a
// client that went away) it is the gateway's count of what was sent,
// flagged as an estimate, so that partial usage is billed.
func (s *stream) Usage() provider.Usage {
	if !s.gotUsage {
		return estimate(s.r, &s.text)
	}
	return s.usage
}

// Close releases the upstream connection. After a complete stream the
// rest of the body (the chunked terminator after [DONE]) is read so the
// connection goes back to the pool instead of being torn down.
func (s *stream) Close() error {
	s.rd.Close()
	if s.done {
		io.CopyN(io.Discard, s.resp.Body, 64<<10)
	}
	err := s.resp.Body.Close()
	s.cancel()
	return err
}

// streamError turns an error event from the upstream into an Error.
func streamError(name string, data []byte) error {
	e := provider.FromStatus(name, http.StatusBadGateway, nil, data)
	e.Status = 0
	e.Kind = provider.KindUnavailable
	return e
}

// usageOf reads an OpenAI usage object in one walk of its members, as
// gjson.Get would read each, instead of a walk for each (issue 18): the
// first of duplicate members counts, and for a detail (cached_tokens in
// prompt_tokens_details, say) the first of duplicate details objects that
// holds it, as gjson's path lookup moves on to the next.
func usageOf(u gjson.Result) provider.Usage {
	var v [len(usageFields)]gjson.Result
	u.ForEach(func(k, val gjson.Result) bool {
		i := slices.Index(usageFields[:], k.Str)
		if i < 0 || v[i].Exists() {
			return true
		}
		if d := i - firstDetail; d >= 0 {
			val = val.Get(usageDetails[d])
		}
		v[i] = val
		return true
	})
	return provider.Usage{
		PromptTokens:     int(v[0].Int()),
		CompletionTokens: int(v[1].Int()),
		TotalTokens:      int(v[2].Int()),
		CachedTokens:     int(v[3].Int()),
		ReasoningTokens:  int(v[4].Int()),
	}
}

// usageFields are the members of a usage object that usageOf reads; the
// last two are objects, of which it reads usageDetails' members.
var usageFields = [...]string{"prompt_tokens", "completion_tokens", "total_tokens", "prompt_tokens_details", "completion_tokens_details"}

// usageDetails are the members usageOf reads of the details objects, the
// fields from firstDetail on, in their order.
var usageDetails = [...]string{"cached_tokens", "reasoning_tokens"}

const firstDetail = len(usageFields) - len(usageDetails)
