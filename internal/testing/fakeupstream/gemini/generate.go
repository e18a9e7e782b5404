package fakegemini

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/testing/fakeupstream"
)

// answer is the deterministic reply to one generateContent request.
type answer struct {
	model    string
	id       string
	blocked  bool
	cands    []cand
	prompt   int // promptTokenCount
	thoughts int // thoughtsTokenCount
}

// cand is one candidate: text pieces (words with their leading space) or
// function calls.
type cand struct {
	thought []string // thought summary pieces, when includeThoughts
	pieces  []string
	calls   []fcall
	finish  string
}

type fcall struct {
	name string
	args json.RawMessage
	sig  string
}

// thoughtTokens is what a thinking model reports it thought.
const thoughtTokens = 7

// generate answers :generateContent and :streamGenerateContent.
func (c *call) generate(stream bool) {
	req, err := parseGenerate(c.model, c.body)
	if err != nil {
		c.fail(err)
		return
	}
	if stream && c.r.URL.Query().Get("alt") != "sse" {
		c.fail(invalid("The fake serves streamGenerateContent only with alt=sse."))
		return
	}
	text := lastUserText(req.contents)
	trigger := findTrigger(text)
	switch {
	case trigger == "hang":
		<-c.r.Context().Done()
		return
	case trigger == "badkey":
		c.fail(errBadKey)
		return
	case strings.HasPrefix(trigger, "error:"):
		c.fail(triggerError(strings.TrimPrefix(trigger, "error:"), c.model))
		return
	case (trigger == "midstream-error" || trigger == "midstream-bare-error") && !stream:
		c.fail(errInternal)
		return
	}
	a := c.s.answer(req, text, trigger)
	if stream {
		c.stream(a, trigger)
		return
	}
	b, _ := json.Marshal(a.response(a.all(), true, true))
	c.json(b)
}

// answer builds the reply: after function responses, a sentence about
// them; with functions offered (and mode not NONE), a call; else the user's
// words echoed, cut by maxOutputTokens and stopSequences.
func (s *Server) answer(req *request, text, trigger string) *answer {
	sum := sha256.Sum256([]byte(req.model + "\x00" + text))
	a := &answer{model: req.model, id: base64.RawURLEncoding.EncodeToString(sum[:12]), prompt: promptTokens(req)}
	a.thoughts = req.gen.thoughts
	if trigger == "blocked" {
		a.blocked = true
		return a
	}
	for k := range max(req.gen.candidates, 1) {
		c := s.candidate(req, text, k, trigger)
		if req.gen.includeThoughts {
			c.thought = thoughtText(text)
		}
		a.cands = append(a.cands, c)
	}
	return a
}

func (s *Server) candidate(req *request, text string, k int, trigger string) cand {
	last := req.contents[len(req.contents)-1]
	if resps := functionParts(last, "functionResponse"); len(resps) > 0 {
		text = describe(resps)
	} else if calls := calls(req, trigger); len(calls) > 0 {
		return cand{calls: calls, finish: "STOP"}
	} else {
		if k > 0 {
			text = "Again: " + text
		}
		text = fakeupstream.Say(text, s.opt.Words)
	}
	if req.gen.json {
		text = jsonAnswer(req.gen.schema, text)
	}
	pieces, finish := cut(text, req.gen.maxTokens, req.gen.stops)
	return cand{pieces: pieces, finish: finish}
}

// calls is the function call the model makes: the first allowed (or
// declared) function, arguments made up from its parameters; two calls
// for "fake:parallel". Gemini 3 signs the first.
func calls(req *request, trigger string) []fcall {
	if len(req.decls) == 0 || req.mode == "NONE" {
		return nil
	}
	d := req.decls[0]
	for _, x := range req.decls {
		if len(req.allowed) > 0 && x.name == req.allowed[0] {
			d = x
		}
	}
	out := []fcall{{name: d.name, args: fakeArgs(d.params, 0)}}
	if trigger == "parallel" {
		out = append(out, fcall{name: d.name, args: fakeArgs(d.params, 1)})
	}
	if needsSignature(req.model) {
		out[0].sig = signature(req.model, d.name)
	}
	return out
}

// fakeArgs makes up a value for every top-level property by its type.
func fakeArgs(params gjson.Result, variant int) json.RawMessage {
	b := []byte{'{'}
	params.Get("properties").ForEach(func(k, p gjson.Result) bool {
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = gjson.AppendJSONString(b, k.Str)
		b = append(b, ':')
		b = append(b, fakeValue(p, variant)...)
		return true
	})
	return append(b, '}')
}

func fakeValue(p gjson.Result, variant int) string {
	if e := p.Get("enum.0"); e.Exists() {
		return e.Raw
	}
	switch strings.ToLower(p.Get("type").String()) {
	case "integer":
		return "1"
	case "number":
		return "1.5"
	case "boolean":
		return "true"
	case "array":
		return "[]"
	case "object":
		return "{}"
	}
	return string(gjson.AppendJSONString(nil, []string{"Paris, FR", "Tokyo, JP"}[variant%2]))
}

// describe tells what the function responses returned.
func describe(resps []gjson.Result) string {
	var b strings.Builder
	for i, r := range resps {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("The function " + r.Get("functionResponse.name").Str + " returned " + r.Get("functionResponse.response").Raw + ".")
	}
	return b.String()
}

// lastUserText is the text of the last user turn with text.
func lastUserText(contents []gjson.Result) string {
	for i := len(contents) - 1; i >= 0; i-- {
		c := contents[i]
		if c.Get("role").Str != "user" {
			continue
		}
		var texts []string
		for _, p := range c.Get("parts").Array() {
			if t := p.Get("text"); t.Type == gjson.String {
				texts = append(texts, t.Str)
			}
		}
		if len(texts) > 0 {
			return strings.Join(texts, " ")
		}
	}
	return ""
}

// promptTokens counts words in every text, and one per other part.
func promptTokens(req *request) int {
	n := 0
	for _, c := range req.contents {
		for _, p := range c.Get("parts").Array() {
			if t := p.Get("text"); t.Type == gjson.String {
				n += len(strings.Fields(t.Str))
			} else {
				n++
			}
		}
	}
	return max(n, 1)
}

// cut ends text at the first stop sequence and splits it into pieces,
// keeping at most limit of them (MAX_TOKENS); limit 0 means no limit.
func cut(text string, limit int, stops []string) ([]string, string) {
	pieces, cutShort := fakeupstream.Cut(text, limit, stops)
	if cutShort {
		return pieces, "MAX_TOKENS"
	}
	return pieces, "STOP"
}
