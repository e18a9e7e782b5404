package fakeopenai

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/testing/fakeupstream"
)

// chatRequest is what the fake needs from a validated chat request.
type chatRequest struct {
	model       string
	stream      bool
	usage       bool // stream_options.include_usage
	n           int
	maxTokens   int // 0: no limit
	stop        []string
	logprobs    bool
	topLogprobs int
	format      gjson.Result // response_format
	calls       []tool       // what to call; none for a text answer
	legacy      bool         // call through function_call
	lastUser    string       // text of the last user message
	lastRole    string
	prompt      int // prompt tokens
	cached      int // of which cached (Options.CachedTokens)
	reasoning   bool
	tier        string
}

// reasoningTokens is what a reasoning model "thinks" per choice.
const reasoningTokens = 8

func parseChat(body []byte, opt Options) (*chatRequest, error) {
	root, err := parseBody(body)
	if err != nil {
		return nil, err
	}
	if err := checkObject(root, "", chatFields, "model", "messages"); err != nil {
		return nil, err
	}
	if err := checkChatRules(root, opt); err != nil {
		return nil, err
	}
	m, err := resolveModel(root.Get("model").Str, chatModel)
	if err != nil {
		return nil, err
	}
	q := &chatRequest{
		model:       root.Get("model").Str,
		stream:      root.Get("stream").Bool(),
		usage:       root.Get("stream_options.include_usage").Bool(),
		n:           int(max(1, root.Get("n").Int())),
		maxTokens:   int(root.Get("max_tokens").Int()),
		stop:        stringList(root.Get("stop")),
		logprobs:    root.Get("logprobs").Bool(),
		topLogprobs: int(root.Get("top_logprobs").Int()),
		format:      root.Get("response_format"),
		reasoning:   m.reasoning,
		tier:        serviceTier(root.Get("service_tier").Str),
	}
	if v := root.Get("max_completion_tokens"); present(v) {
		q.maxTokens = int(v.Int())
	}
	q.readMessages(root.Get("messages").Array())
	q.cached = min(opt.CachedTokens, q.prompt)
	if err := checkChatModel(root, m, q.prompt); err != nil {
		return nil, err
	}
	q.calls, q.legacy = pickCalls(root, q.lastRole)
	return q, nil
}

// stringList reads a string or an array of strings.
func stringList(v gjson.Result) []string {
	if v.Type == gjson.String {
		return []string{v.Str}
	}
	var out []string
	for _, s := range v.Array() {
		out = append(out, s.Str)
	}
	return out
}

func serviceTier(asked string) string {
	switch asked {
	case "flex", "scale", "priority":
		return asked
	}
	return "default"
}

// readMessages counts prompt tokens (words plus 3 per message) and notes
// the last user text and the last role.
func (q *chatRequest) readMessages(msgs []gjson.Result) {
	for _, m := range msgs {
		text := contentText(m.Get("content"))
		q.prompt += countWords(text) + 3
		q.lastRole = m.Get("role").Str
		if q.lastRole == "user" {
			q.lastUser = text
		}
	}
}

func (s *Server) chat(c *call) {
	q, err := parseChat(c.body, s.opt)
	if err != nil {
		c.fail(err)
		return
	}
	t := findTrigger(q.lastUser)
	if t != "" && !strings.HasPrefix(t, "midstream-") {
		c.trigger(t, q.model)
		return
	}
	a := s.chatAnswer(q)
	if q.stream {
		s.streamChat(c, q, a, t)
		return
	}
	b, err := json.Marshal(s.chatCompletion(q, a))
	if err != nil {
		c.fail(err)
		return
	}
	c.json(b)
}

// answer is what each choice of a response says.
type answer struct {
	pieces []string // content as streamed: words with their leading space
	calls  []callOut
	legacy bool
	finish string
	tokens int // completion tokens per choice, without reasoning
}

type callOut struct{ name, args string }

func (s *Server) chatAnswer(q *chatRequest) *answer {
	if len(q.calls) > 0 {
		a := &answer{legacy: q.legacy, finish: "tool_calls"}
		if q.legacy {
			a.finish = "function_call"
		}
		for _, t := range q.calls {
			args := sampleArgs(t.params)
			a.calls = append(a.calls, callOut{name: t.name, args: args})
			a.tokens += 5 + len(args)/4
		}
		return a
	}
	text := fakeupstream.Say(q.lastUser, s.opt.Words)
	switch q.format.Get("type").Str {
	case "json_object":
		text = string(gjson.AppendJSONString([]byte(`{"answer":`), text)) + "}"
	case "json_schema":
		text = sampleArgs(q.format.Get("json_schema.schema"))
	}
	pieces, finish := cut(text, q.maxTokens, q.stop)
	return &answer{pieces: pieces, finish: finish, tokens: len(pieces)}
}

func (q *chatRequest) usageOf(a *answer) usage {
	reasoning := 0
	if q.reasoning {
		reasoning = reasoningTokens * q.n
	}
	completion := a.tokens*q.n + reasoning
	return usage{
		PromptTokens:      q.prompt,
		CompletionTokens:  completion,
		TotalTokens:       q.prompt + completion,
		PromptDetails:     &promptDetails{CachedTokens: q.cached},
		CompletionDetails: &completionDetails{ReasoningTokens: reasoning},
	}
}

type usage struct {
	PromptTokens      int                `json:"prompt_tokens"`
	CompletionTokens  int                `json:"completion_tokens"`
	TotalTokens       int                `json:"total_tokens"`
	PromptDetails     *promptDetails     `json:"prompt_tokens_details,omitempty"`
	CompletionDetails *completionDetails `json:"completion_tokens_details,omitempty"`
}

type promptDetails struct {
	CachedTokens int `json:"cached_tokens"`
	AudioTokens  int `json:"audio_tokens"`
}

type completionDetails struct {
	ReasoningTokens          int `json:"reasoning_tokens"`
	AudioTokens              int `json:"audio_tokens"`
	AcceptedPredictionTokens int `json:"accepted_prediction_tokens"`
	RejectedPredictionTokens int `json:"rejected_prediction_tokens"`
}

type chatCompletion struct {
	ID                string       `json:"id"`
	Object            string       `json:"object"`
	Created           int64        `json:"created"`
	Model             string       `json:"model"`
	Choices           []chatChoice `json:"choices"`
	Usage             usage        `json:"usage"`
	ServiceTier       string       `json:"service_tier"`
	SystemFingerprint string       `json:"system_fingerprint"`
}

type chatChoice struct {
	Index        int             `json:"index"`
	Message      chatMessage     `json:"message"`
	Logprobs     json.RawMessage `json:"logprobs"`
	FinishReason string          `json:"finish_reason"`
}

type chatMessage struct {
	Role         string        `json:"role"`
	Content      *string       `json:"content"`
	ToolCalls    []toolCall    `json:"tool_calls,omitempty"`
	FunctionCall *functionCall `json:"function_call,omitempty"`
	Refusal      *string       `json:"refusal"`
	Annotations  []struct{}    `json:"annotations"`
}

type toolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function functionCall `json:"function"`
}

type functionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

const fingerprint = "fp_fake"

func (s *Server) chatCompletion(q *chatRequest, a *answer) chatCompletion {
	out := chatCompletion{
		ID:                s.NewID("chatcmpl-fake"),
		Object:            "chat.completion",
		Created:           time.Now().Unix(),
		Model:             q.model,
		Choices:           make([]chatChoice, q.n),
		Usage:             q.usageOf(a),
		ServiceTier:       q.tier,
		SystemFingerprint: fingerprint,
	}
	for i := range out.Choices {
		msg := chatMessage{Role: "assistant", Annotations: []struct{}{}}
		switch {
		case a.legacy:
			msg.FunctionCall = &functionCall{Name: a.calls[0].name, Arguments: a.calls[0].args}
		case len(a.calls) > 0:
			for _, call := range a.calls {
				msg.ToolCalls = append(msg.ToolCalls, toolCall{ID: s.NewID("call_fake"), Type: "function", Function: functionCall{Name: call.name, Arguments: call.args}})
			}
		default:
			text := joinPieces(a.pieces)
			msg.Content = &text
		}
		ch := chatChoice{Index: i, Message: msg, FinishReason: a.finish}
		if q.logprobs && len(a.calls) == 0 {
			ch.Logprobs = appendLogprobs(nil, a.pieces, q.topLogprobs)
		}
		out.Choices[i] = ch
	}
	return out
}
