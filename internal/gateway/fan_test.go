package gateway_test

import (
	"context"
	"encoding/json"
	"io"
	"strconv"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/provider"
)

// fan is a chat provider that honours n: choice j of a request whose user
// message is p says "p#j". It refuses the prompt "fail".
type fan struct{}

func (fan) Name() string { return "fan" }
func (fan) Type() string { return "fan" }

// fanUsage is every fan answer's usage.
var fanUsage = provider.Usage{PromptTokens: 3, CompletionTokens: 2, TotalTokens: 5}

func (fan) read(r *provider.Request) (prompt string, n int, err error) {
	prompt = gjson.GetBytes(r.Body, "messages.0.content").Str
	if prompt == "fail" {
		return "", 0, &provider.Error{Provider: "fan", Kind: provider.KindBadRequest, Status: 400, Message: "refused"}
	}
	return prompt, max(1, int(gjson.GetBytes(r.Body, "n").Int())), nil
}

func (f fan) Chat(ctx context.Context, r *provider.Request) (*provider.Response, error) {
	prompt, n, err := f.read(r)
	if err != nil {
		return nil, err
	}
	var choices []any
	for j := range n {
		choices = append(choices, map[string]any{"index": j, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": prompt + "#" + strconv.Itoa(j)}})
	}
	b, err := json.Marshal(map[string]any{"id": "chatcmpl-fan", "object": "chat.completion", "created": 1, "model": r.Model,
		"choices": choices})
	return &provider.Response{Body: b, Usage: fanUsage}, err
}

// ChatStream interleaves the choices: all role chunks, then all content
// chunks, then all finish chunks.
func (f fan) ChatStream(ctx context.Context, r *provider.Request) (provider.Stream, error) {
	prompt, n, err := f.read(r)
	if err != nil {
		return nil, err
	}
	st := &list{usage: fanUsage}
	for _, delta := range []string{`{"role":"assistant","content":""}`, "", `{}`} {
		for j := range n {
			d, finish := delta, "null"
			if d == "" {
				d = `{"content":` + strconv.Quote(prompt+"#"+strconv.Itoa(j)) + `}`
			}
			if d == `{}` {
				finish = `"stop"`
			}
			st.chunks = append(st.chunks, []byte(`{"id":"chatcmpl-fan","object":"chat.completion.chunk","created":1,"model":"`+r.Model+
				`","choices":[{"index":`+strconv.Itoa(j)+`,"delta":`+d+`,"finish_reason":`+finish+`}]}`))
		}
	}
	return st, nil
}

// list is a stream of prepared chunks.
type list struct {
	chunks [][]byte
	usage  provider.Usage
	closed bool
}

func (l *list) Next() ([]byte, error) {
	if len(l.chunks) == 0 {
		return nil, io.EOF
	}
	b := l.chunks[0]
	l.chunks = l.chunks[1:]
	return b, nil
}

func (l *list) Usage() provider.Usage { return l.usage }
func (l *list) Close() error          { l.closed = true; return nil }
