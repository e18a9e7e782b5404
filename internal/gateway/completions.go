package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	"golang.org/x/sync/errgroup"

	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/tokens"
)

// Legacy completions: a model with a native /completions endpoint gets the
// request as is; a chat model gets each prompt as one user message, and
// the answers come back in the text_completion shape, one choice per
// prompt (times n).

// DefaultCompletionMaxTokens is the legacy endpoint's default max_tokens,
// which is also what the upstream receives when the client sent none.
const DefaultCompletionMaxTokens = 16

// completionBody returns the body with max_tokens defaulted to 16.
func completionBody(body []byte) []byte {
	if v := gjson.GetBytes(body, "max_tokens"); v.Exists() && v.Type != gjson.Null {
		return body
	}
	b, err := sjson.SetBytes(body, "max_tokens", DefaultCompletionMaxTokens)
	if err != nil {
		return body
	}
	return b
}

// complete answers a legacy completion.
func (g *Gateway) complete(ctx context.Context, t target, req *Request) (*provider.Response, error) {
	body := completionBody(req.Body)
	if cp, ok := t.dep.Provider.(provider.Completer); ok && t.model.Mode == catalog.ModeCompletion {
		return cp.Complete(ctx, t.request(req, body))
	}
	chats, err := chatRequests(t, req, body)
	if err != nil {
		return nil, err
	}
	ch, ok := t.dep.Provider.(provider.Chatter)
	if !ok {
		return nil, errNoCapability(t.dep.Provider, "chat")
	}
	resps := make([]*provider.Response, len(chats))
	calls, cctx := errgroup.WithContext(ctx)
	calls.SetLimit(MaxPromptCalls)
	for i, r := range chats {
		if cctx.Err() != nil {
			break // a call failed: start no more
		}
		calls.Go(func() error {
			var err error
			resps[i], err = ch.Chat(cctx, r)
			return err
		})
	}
	// The first failure, classified as the provider said; it cancels the
	// calls still running and those not started.
	if err := calls.Wait(); err != nil {
		return nil, err
	}
	return textCompletion(t.model.ID, resps)
}

// MaxPromptCalls bounds the upstream calls one legacy completion on a chat
// model runs at once (one per prompt, up to 2,048 prompts), so a single
// request cannot open thousands of upstream connections (issue 13).
const MaxPromptCalls = 8

// chatRequests translates a legacy completion into one chat request per
// prompt, refusing what chat cannot express.
func chatRequests(t target, req *Request, body []byte) ([]*provider.Request, error) {
	prompts, model := req.Prompts, t.model.ID
	if prompts == nil {
		prompts = decodeTokenPrompts(model, gjson.GetBytes(body, "prompt"))
	}
	switch {
	case gjson.GetBytes(body, "echo").Bool():
		return nil, &ErrUnsupported{Param: "echo", Message: "echo is not supported for chat model " + model + "."}
	case gjson.GetBytes(body, "suffix").String() != "":
		return nil, &ErrUnsupported{Param: "suffix", Message: "suffix is not supported for chat model " + model + "."}
	case gjson.GetBytes(body, "best_of").Int() > 1:
		return nil, &ErrUnsupported{Param: "best_of", Message: "best_of is not supported for chat model " + model + "."}
	case gjson.GetBytes(body, "logprobs").Type == gjson.Number:
		return nil, &ErrUnsupported{Param: "logprobs", Message: "logprobs is not supported for chat model " + model + "."}
	}
	base := []byte(`{}`)
	for _, f := range []string{"model", "max_tokens", "temperature", "top_p", "n", "stop", "presence_penalty",
		"frequency_penalty", "logit_bias", "seed", "user", "stream"} {
		if v := gjson.GetBytes(body, f); v.Exists() {
			base, _ = sjson.SetRawBytes(base, f, []byte(v.Raw))
		}
	}
	out := make([]*provider.Request, len(prompts))
	for i, p := range prompts {
		msgs, _ := json.Marshal([]map[string]string{{"role": "user", "content": p}})
		b, err := sjson.SetRawBytes(base, "messages", msgs)
		if err != nil {
			return nil, err
		}
		out[i] = &provider.Request{Endpoint: provider.EndpointChat, Model: model, UpstreamModel: t.dep.UpstreamID,
			Body: b, Stream: req.Stream, RequestID: requestID(req), MaxOutputTokens: t.model.MaxOutputTokens}
	}
	return out, nil
}

// textCompletion merges chat answers into one text_completion.
func textCompletion(model string, resps []*provider.Response) (*provider.Response, error) {
	type choice struct {
		Text         string  `json:"text"`
		Index        int     `json:"index"`
		Logprobs     any     `json:"logprobs"`
		FinishReason *string `json:"finish_reason"`
	}
	var choices []choice
	var usage provider.Usage
	n := 0
	for _, r := range resps {
		cs := gjson.GetBytes(r.Body, "choices").Array()
		for _, ch := range cs {
			fr := ch.Get("finish_reason").Str
			choices = append(choices, choice{Text: ch.Get("message.content").Str, Index: n + int(ch.Get("index").Int()), FinishReason: &fr})
		}
		n += len(cs)
		usage.PromptTokens += r.Usage.PromptTokens
		usage.CompletionTokens += r.Usage.CompletionTokens
		usage.TotalTokens += r.Usage.TotalTokens
	}
	first := resps[0].Body
	b, err := json.Marshal(map[string]any{
		"id": completionID(gjson.GetBytes(first, "id").Str), "object": "text_completion",
		"created": gjson.GetBytes(first, "created").Int(), "model": model, "choices": choices,
		"usage": map[string]int{"prompt_tokens": usage.PromptTokens, "completion_tokens": usage.CompletionTokens, "total_tokens": usage.TotalTokens},
	})
	return &provider.Response{Body: b, Usage: usage}, err
}

func completionID(chatID string) string {
	return "cmpl-" + strings.TrimPrefix(chatID, "chatcmpl-")
}

// completeStream streams a legacy completion.
func (g *Gateway) completeStream(ctx context.Context, t target, req *Request) (provider.Stream, error) {
	body := completionBody(req.Body)
	if cp, ok := t.dep.Provider.(provider.Completer); ok && t.model.Mode == catalog.ModeCompletion {
		return cp.CompleteStream(ctx, t.request(req, body))
	}
	chats, err := chatRequests(t, req, body)
	if err != nil {
		return nil, err
	}
	st, ok := t.dep.Provider.(provider.Streamer)
	if !ok {
		return nil, errNoCapability(t.dep.Provider, "streaming chat")
	}
	return &textStream{ctx: ctx, st: st, reqs: chats, model: t.model.ID, includeUsage: req.IncludeUsage,
		n: max(1, int(gjson.GetBytes(body, "n").Int()))}, nil
}

// textStream runs the prompts' chat streams one after the other and turns
// their chunks into text_completion chunks.
type textStream struct {
	ctx          context.Context
	st           provider.Streamer
	reqs         []*provider.Request
	model        string
	includeUsage bool
	n            int

	cur     provider.Stream
	prompt  int
	usage   provider.Usage
	id      string
	created int64
	done    bool
}

func (s *textStream) Next() ([]byte, error) {
	for !s.done {
		if s.cur == nil {
			if s.prompt == len(s.reqs) {
				s.done = true
				if s.includeUsage {
					return s.usageChunk()
				}
				break
			}
			cur, err := s.st.ChatStream(s.ctx, s.reqs[s.prompt])
			if err != nil {
				return nil, err
			}
			s.cur = cur
		}
		chunk, err := s.cur.Next()
		if errors.Is(err, io.EOF) {
			u := s.cur.Usage()
			s.usage.PromptTokens += u.PromptTokens
			s.usage.CompletionTokens += u.CompletionTokens
			s.usage.TotalTokens += u.TotalTokens
			s.usage.Estimated = s.usage.Estimated || u.Estimated
			s.cur.Close()
			s.cur = nil
			s.prompt++
			continue
		}
		if err != nil {
			return nil, err
		}
		if out, ok := s.convert(chunk); ok {
			return out, nil
		}
	}
	return nil, io.EOF
}

// Await waits on the prompt's chat stream that Next reads, so that the
// relay's wait for the upstream is in Await for these streams too (issue
// 18). With no stream open, Next opens the next prompt's, or ends, and
// there is nothing to wait on here.
func (s *textStream) Await() {
	if s.done || s.cur == nil {
		return
	}
	if aw, ok := s.cur.(provider.Awaiter); ok {
		aw.Await()
	}
}

// convert turns one chat chunk into a text_completion chunk; role-only
// chunks have nothing to say and are dropped.
func (s *textStream) convert(chunk []byte) ([]byte, bool) {
	if s.id == "" {
		s.id = completionID(gjson.GetBytes(chunk, "id").Str)
		s.created = gjson.GetBytes(chunk, "created").Int()
	}
	var choices []string
	for _, ch := range gjson.GetBytes(chunk, "choices").Array() {
		text := ch.Get("delta.content").Str
		fr := ch.Get("finish_reason")
		if text == "" && fr.Type != gjson.String {
			continue
		}
		finish := "null"
		if fr.Type == gjson.String {
			finish = strconv.Quote(fr.Str)
		}
		idx := s.prompt*s.n + int(ch.Get("index").Int())
		choices = append(choices, `{"text":`+strconv.Quote(text)+`,"index":`+strconv.Itoa(idx)+`,"logprobs":null,"finish_reason":`+finish+`}`)
	}
	if len(choices) == 0 {
		return nil, false
	}
	return s.chunk("["+strings.Join(choices, ",")+"]", "null"), true
}

func (s *textStream) chunk(choices, usage string) []byte {
	b := `{"id":` + strconv.Quote(s.id) + `,"object":"text_completion","created":` + strconv.FormatInt(s.created, 10) +
		`,"model":` + strconv.Quote(s.model) + `,"choices":` + choices
	if s.includeUsage {
		b += `,"usage":` + usage
	}
	return []byte(b + "}")
}

func (s *textStream) usageChunk() ([]byte, error) {
	u := `{"prompt_tokens":` + strconv.Itoa(s.usage.PromptTokens) + `,"completion_tokens":` + strconv.Itoa(s.usage.CompletionTokens) +
		`,"total_tokens":` + strconv.Itoa(s.usage.TotalTokens) + `}`
	return s.chunk("[]", u), nil
}

func (s *textStream) Usage() provider.Usage { return s.usage }

func (s *textStream) Close() error {
	if s.cur != nil {
		return s.cur.Close()
	}
	return nil
}

// decodeTokenPrompts turns token-ID prompts (int[] or int[][]) back into
// text for chat models, with the model family's tokenizer.
func decodeTokenPrompts(model string, p gjson.Result) []string {
	rows := p.Array()
	if len(rows) > 0 && !rows[0].IsArray() {
		rows = []gjson.Result{p}
	}
	out := make([]string, len(rows))
	for i, row := range rows {
		var ids []int
		row.ForEach(func(_, id gjson.Result) bool {
			ids = append(ids, int(id.Int()))
			return true
		})
		out[i] = tokens.Decode(model, ids)
	}
	return out
}
