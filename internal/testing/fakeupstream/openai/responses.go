package fakeopenai

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/testing/fakeupstream"
)

// respRequest is what the fake needs from a valid Responses request.
type respRequest struct {
	root      gjson.Result
	model     string
	stream    bool
	reasoning bool // a reasoning model: a reasoning item comes first
	encrypted bool // include asks for reasoning.encrypted_content
	summary   bool // reasoning.summary asks for a summary
	calls     []tool
	format    gjson.Result // text.format
	maxOutput int          // 0: no limit
	lastUser  string
	answered  bool // the last input item is a function_call_output
	prompt    int
	cached    int
}

func parseResponses(body []byte, opt Options) (*respRequest, error) {
	root, err := parseBody(body)
	if err != nil {
		return nil, err
	}
	if err := checkResponsesFields(root); err != nil {
		return nil, err
	}
	m, err := resolveModel(root.Get("model").Str, chatModel)
	if err != nil {
		return nil, err
	}
	if err := checkResponsesModel(root, m); err != nil {
		return nil, err
	}
	q := &respRequest{
		root: root, model: root.Get("model").Str, stream: root.Get("stream").Bool(),
		reasoning: isReasoning(m), summary: present(root.Get("reasoning.summary")),
		format: root.Get("text.format"), maxOutput: int(root.Get("max_output_tokens").Int()),
		encrypted: slices.ContainsFunc(root.Get("include").Array(), func(v gjson.Result) bool { return v.Str == "reasoning.encrypted_content" }),
	}
	if err := q.readInput(root.Get("input")); err != nil {
		return nil, err
	}
	q.prompt += countWords(root.Get("instructions").Str)
	q.cached = min(opt.CachedTokens, q.prompt)
	q.calls = q.pickCalls()
	return q, nil
}

// isReasoning reports a reasoning model: the catalogue's flag, else the
// ID (o-series, gpt-5).
func isReasoning(m model) bool {
	id := strings.TrimPrefix(m.id, "fake-")
	return m.reasoning || strings.HasPrefix(id, "gpt-5") ||
		len(id) > 1 && id[0] == 'o' && id[1] >= '1' && id[1] <= '9'
}

// pickCalls decides what the request calls: the forced function, else the
// first (the first two when parallel calls are allowed); none when the
// last item is a tool output unless a call is required, so that client
// tool loops end. Hosted tools are never called.
func (q *respRequest) pickCalls() []tool {
	var defs []tool
	for _, t := range q.root.Get("tools").Array() {
		if t.Get("type").Str == "function" {
			defs = append(defs, tool{name: t.Get("name").Str, params: t.Get("parameters")})
		}
	}
	choice := q.root.Get("tool_choice")
	required := choice.Str == "required"
	switch choice.Get("type").Str {
	case "function":
		return only(defs, choice.Get("name").Str)
	case "allowed_tools":
		names := choice.Get("tools.#.name").Array()
		defs = slices.DeleteFunc(defs, func(t tool) bool {
			return !slices.ContainsFunc(names, func(n gjson.Result) bool { return n.Str == t.name })
		})
		required = choice.Get("mode").Str == "required"
	}
	if len(defs) == 0 || choice.Str == "none" || q.answered && !required {
		return nil
	}
	if len(defs) >= 2 && q.root.Get("parallel_tool_calls").Type != gjson.False {
		return defs[:2]
	}
	return defs[:1]
}

// respAnswer is what the fake says: a reasoning item (reasoning models),
// then calls or a message.
type respAnswer struct {
	ids       respIDs
	summary   []string // the reasoning summary as streamed; nil without one
	pieces    []string // the message text as streamed
	calls     []callOut
	cut       bool // max_output_tokens ended the message
	reasoning int  // reasoning tokens
	tokens    int  // output tokens, reasoning apart
}

// summaryText is the reasoning summary of every answer.
const summaryText = "**Answering the question**\n\nThe fake reads the input and answers it."

func (s *Server) respAnswer(q *respRequest) *respAnswer {
	a := &respAnswer{ids: s.newRespIDs(q.reasoning)}
	if q.reasoning {
		a.reasoning = reasoningTokens
		if q.summary {
			a.summary = fakeupstream.Split(summaryText)
		}
	}
	if len(q.calls) > 0 {
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
		text = sampleArgs(q.format.Get("schema"))
	}
	limit := 0
	if q.maxOutput > 0 {
		limit = max(1, q.maxOutput-a.reasoning)
	}
	a.pieces, a.cut = fakeupstream.Cut(text, limit, nil)
	a.tokens = len(a.pieces)
	return a
}

// respIDs are the IDs of one response. A reasoning model's share a token
// that marks them (reasonedTag), so that a later request can be checked
// for the reasoning item each needs without the fake keeping state.
type respIDs struct{ tok string }

// reasonedTag starts the token of a reasoning model's response IDs.
const reasonedTag = "rfake"

// tokLen is the length of a reasoned token: the tag and NewID's 20.
const tokLen = len(reasonedTag) + 20

func (s *Server) newRespIDs(reasoning bool) respIDs {
	if reasoning {
		return respIDs{tok: s.NewID(reasonedTag)}
	}
	return respIDs{tok: s.NewID("fake")}
}

func (r respIDs) response() string  { return "resp_" + r.tok }
func (r respIDs) reasoning() string { return "rs_" + r.tok }
func (r respIDs) message() string   { return "msg_" + r.tok }
func (r respIDs) call(k int) string { return "fc_" + r.tok + "_" + strconv.Itoa(k) }
func (r respIDs) callID(k int) string {
	return "call_" + r.tok + "_" + strconv.Itoa(k)
}

// reasoningOf returns the reasoning item an item ID of a reasoning
// model's response needs, when the ID is one.
func reasoningOf(id string) (string, bool) {
	for _, p := range [...]string{"fc_", "msg_"} {
		if rest, ok := strings.CutPrefix(id, p); ok && strings.HasPrefix(rest, reasonedTag) && len(rest) >= tokLen {
			return "rs_" + rest[:tokLen], true
		}
	}
	return "", false
}

// responses answers POST /v1/responses.
func (s *Server) responses(c *call) {
	q, err := parseResponses(c.body, s.opt)
	if err != nil {
		c.fail(err)
		return
	}
	t := findTrigger(q.lastUser)
	if t != "" && !strings.HasPrefix(t, "midstream-") {
		c.trigger(t, q.model)
		return
	}
	a := s.respAnswer(q)
	if q.stream {
		s.streamResponse(c, q, a, t)
		return
	}
	b, err := json.Marshal(q.response(a, statusOf(a)))
	if err != nil {
		c.fail(err)
		return
	}
	c.json(b)
}
