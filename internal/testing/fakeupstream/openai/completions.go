package fakeopenai

import (
	"encoding/json"
	"math"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/testing/fakeupstream"
)

// completionFields are the fields of a legacy completions request (wire-formats 1.5).
var completionFields = fields{
	"model":             str,
	"prompt":            prompt,
	"best_of":           integer(0, 20),
	"echo":              boolean,
	"frequency_penalty": decimal(-2, 2),
	"logit_bias":        logitBias,
	"logprobs":          integer(0, 5),
	"max_tokens":        integer(0, math.MaxInt32),
	"n":                 integer(1, 128),
	"presence_penalty":  decimal(-2, 2),
	"seed":              integer(math.MinInt64, math.MaxInt64),
	"stop":              stop,
	"stream":            boolean,
	"stream_options":    objectOf(fields{"include_usage": boolean, "include_obfuscation": boolean}),
	"suffix":            str,
	"temperature":       decimal(0, 2),
	"top_p":             decimal(0, 1),
	"user":              str,
}

// defaultMaxTokens is the completions endpoint's max_tokens default.
const defaultMaxTokens = 16

func prompt(v gjson.Result, p string) error {
	if _, ok := readInputs(v); !ok {
		return errType(p, "one of a string, array of strings, array of integers, or array of arrays of integers", v)
	}
	return nil
}

// completionRequest is what the fake needs from a validated completions request.
type completionRequest struct {
	model     string
	prompts   []input
	n         int
	maxTokens int
	stop      []string
	echo      bool
	stream    bool
	usage     bool
}

func parseCompletion(body []byte) (*completionRequest, error) {
	root, err := parseBody(body)
	if err != nil {
		return nil, err
	}
	if err := checkObject(root, "", completionFields, "model", "prompt"); err != nil {
		return nil, err
	}
	q := &completionRequest{
		model:     root.Get("model").Str,
		n:         int(max(1, root.Get("n").Int())),
		maxTokens: defaultMaxTokens,
		stop:      stringList(root.Get("stop")),
		echo:      root.Get("echo").Bool(),
		stream:    root.Get("stream").Bool(),
		usage:     root.Get("stream_options.include_usage").Bool(),
	}
	q.prompts, _ = readInputs(root.Get("prompt"))
	if v := root.Get("max_tokens"); present(v) {
		q.maxTokens = int(v.Int())
	}
	bestOf := root.Get("best_of")
	for _, err := range []error{
		onlyWhen(root, "stream_options", "The 'stream_options' parameter is only allowed when 'stream' is enabled.", q.stream),
		onlyWhen(root, "best_of", "best_of must be greater than or equal to n.", bestOf.Int() >= int64(q.n)),
		onlyWhen(root, "best_of", "Cannot stream results with best_of greater than 1.", !q.stream || bestOf.Int() <= 1),
		q.checkModel(),
	} {
		if err != nil {
			return nil, err
		}
	}
	return q, nil
}

func (q *completionRequest) checkModel() error {
	m, err := resolveModel(q.model, completionModel)
	if err != nil {
		return err
	}
	if m.maxOutput > 0 && q.maxTokens > m.maxOutput {
		return badRequest("max_tokens", "invalid_value", "max_tokens is too large: %d. This model supports at most %d completion tokens, whereas you provided %d.", q.maxTokens, m.maxOutput, q.maxTokens)
	}
	for _, in := range q.prompts {
		if in.tokens+q.maxTokens > m.context {
			return badRequest("prompt", "context_length_exceeded", "This model's maximum context length is %d tokens, however you requested %d tokens (%d in your prompt; %d for the completion). Please reduce your prompt; or completion length.", m.context, in.tokens+q.maxTokens, in.tokens, q.maxTokens)
		}
	}
	return nil
}

// promptText is all string prompts, where triggers are looked for.
func (q *completionRequest) promptText() string {
	var text string
	for _, in := range q.prompts {
		text += in.text + " "
	}
	return text
}

func (s *Server) completions(c *call) {
	q, err := parseCompletion(c.body)
	if err != nil {
		c.fail(err)
		return
	}
	t := findTrigger(q.promptText())
	if t != "" && !strings.HasPrefix(t, "midstream-") {
		c.trigger(t, q.model)
		return
	}
	answers, u := s.completionAnswers(q)
	if q.stream {
		s.streamCompletion(c, q, answers, u, t == "midstream-error")
		return
	}
	out := completion{ID: s.NewID("cmpl-fake"), Object: "text_completion", Created: time.Now().Unix(), Model: q.model, Usage: u}
	for i, a := range answers {
		out.Choices = append(out.Choices, completionChoice{Text: joinPieces(a.pieces), Index: i, FinishReason: a.finish})
	}
	b, err := json.Marshal(out)
	if err != nil {
		c.fail(err)
		return
	}
	c.json(b)
}

// completionAnswers answers each prompt n times (choice i*n+j is prompt
// i's j-th); with echo the prompt is the first piece but not a token.
func (s *Server) completionAnswers(q *completionRequest) ([]answer, usage) {
	var u usage
	out := make([]answer, 0, len(q.prompts)*q.n)
	for _, in := range q.prompts {
		u.PromptTokens += in.tokens
		pieces, finish := cut(fakeupstream.Say(in.text, s.opt.Words), q.maxTokens, q.stop)
		if q.maxTokens == 0 {
			pieces, finish = nil, "length"
		}
		a := answer{pieces: pieces, finish: finish, tokens: len(pieces)}
		if q.echo {
			a.pieces = append([]string{in.text}, pieces...)
		}
		for range q.n {
			out = append(out, a)
			u.CompletionTokens += a.tokens
		}
	}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	return out, u
}

type completion struct {
	ID      string             `json:"id"`
	Object  string             `json:"object"`
	Created int64              `json:"created"`
	Model   string             `json:"model"`
	Choices []completionChoice `json:"choices"`
	Usage   usage              `json:"usage"`
}

type completionChoice struct {
	Text         string          `json:"text"`
	Index        int             `json:"index"`
	Logprobs     json.RawMessage `json:"logprobs"`
	FinishReason string          `json:"finish_reason"`
}

// streamCompletion streams the choices word by word, interleaved, as
// completions_stream*.sse do.
func (s *Server) streamCompletion(c *call, q *completionRequest, answers []answer, u usage, midstream bool) {
	k := newChunker(s.NewID("cmpl-fake"), "text_completion", q.model, "", s.usageMode(q.usage))
	e := c.startStream(s.opt.TokenDelay)
	sent := 0
	for step := 0; ; step++ {
		more := false
		for i, a := range answers {
			if step >= len(a.pieces) {
				continue
			}
			more = true
			if midstream && sent == 2 {
				break
			}
			if e.Send(k.text(i, a.pieces[step], "", nil)) != nil {
				return
			}
			sent++
		}
		if !more || midstream && sent == 2 {
			break
		}
	}
	if midstream {
		e.Send(midstreamError)
		return
	}
	s.finishCompletion(e, k, answers, u, c.reqID)
}

// finishCompletion sends each choice's finish chunk, the usage chunk when
// asked, and [DONE].
func (s *Server) finishCompletion(e *fakeupstream.Events, k *chunker, answers []answer, u usage, reqID string) {
	for i, a := range answers {
		var xg []byte
		if k.mode == groqUsage && i == len(answers)-1 {
			xg = xGroq(reqID, u.PromptTokens, u.CompletionTokens)
		}
		if e.Send(k.text(i, "", a.finish, xg)) != nil {
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
