package fakeanthropic

import (
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// request is what the fake needs from a valid request.
type request struct {
	model      string
	maxTokens  int
	stream     bool
	stop       []string
	tools      []tool
	choice     choice
	lastUser   string // text of the last user message
	answered   bool   // the last user message holds tool results
	prompt     int    // input tokens: words plus 3 per message
	toolBlocks bool   // the messages hold tool_use or tool_result blocks
	thinking   thinking
	format     gjson.Result // output_config.format.schema
}

// Check validates a Messages API request body the way the fake server
// does, headers apart, and returns the error it would answer with; nil
// when it would serve the request.
func Check(body []byte) error {
	_, err := parse(body)
	return err
}

var topFields = keys("model", "max_tokens", "messages", "system", "temperature", "top_p", "top_k",
	"stop_sequences", "stream", "tools", "tool_choice", "metadata", "thinking", "service_tier", "output_config")

func keys(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// parse validates body: unknown fields, required fields, each field, the
// conversation, then the model.
func parse(body []byte) (*request, error) {
	if !gjson.ValidBytes(body) {
		return nil, invalid("There was an error parsing the body: invalid JSON")
	}
	root := gjson.ParseBytes(body)
	if !root.IsObject() {
		return nil, invalid("Input should be a valid dictionary")
	}
	if err := checkKeys(root, "", topFields); err != nil {
		return nil, err
	}
	for _, k := range [...]string{"model", "max_tokens", "messages"} {
		if !root.Get(k).Exists() {
			return nil, invalid("%s: Field required", k)
		}
	}
	q := &request{model: root.Get("model").Str, stream: root.Get("stream").Bool()}
	for _, check := range [...]func(gjson.Result) error{q.checkScalars, q.checkSampling, q.checkSystem, q.checkConversation, q.checkToolFields, q.checkThinking} {
		if err := check(root); err != nil {
			return nil, err
		}
	}
	return q, q.checkModel(root)
}

// checkKeys refuses members of obj not in allowed.
func checkKeys(obj gjson.Result, prefix string, allowed map[string]bool) error {
	var err error
	obj.ForEach(func(k, _ gjson.Result) bool {
		if !allowed[k.Str] {
			err = invalid("%s: Extra inputs are not permitted", join(prefix, k.Str))
		}
		return err == nil
	})
	return err
}

func join(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

func at(prefix string, i int) string { return prefix + "." + strconv.Itoa(i) }

func (q *request) checkScalars(root gjson.Result) error {
	if m := root.Get("model"); m.Type != gjson.String {
		return invalid("model: Input should be a valid string")
	}
	mt := root.Get("max_tokens")
	if mt.Type != gjson.Number || mt.Float() != float64(mt.Int()) {
		return invalid("max_tokens: Input should be a valid integer")
	}
	if mt.Int() < 1 {
		return invalid("max_tokens: Input should be greater than or equal to 1")
	}
	q.maxTokens = int(min(mt.Int(), 1<<31))
	if s := root.Get("stream"); s.Exists() && !s.IsBool() {
		return invalid("stream: Input should be a valid boolean")
	}
	if md := root.Get("metadata"); md.Exists() {
		if !md.IsObject() {
			return invalid("metadata: Input should be a valid dictionary")
		}
		if err := checkKeys(md, "metadata", keys("user_id")); err != nil {
			return err
		}
		if u := md.Get("user_id"); u.Exists() && u.Type != gjson.String && u.Type != gjson.Null {
			return invalid("metadata.user_id: Input should be a valid string")
		}
	}
	return nil
}

// checkSampling checks temperature, top_p, top_k and stop_sequences. The
// both-set rule of recent models is checked with the model.
func (q *request) checkSampling(root gjson.Result) error {
	for _, f := range [...]string{"temperature", "top_p"} {
		v := root.Get(f)
		switch {
		case !v.Exists():
		case v.Type != gjson.Number:
			return invalid("%s: Input should be a valid number", f)
		case v.Float() < 0 || v.Float() > 1:
			return invalid("%s: Input should be less than or equal to 1 and greater than or equal to 0", f)
		}
	}
	if k := root.Get("top_k"); k.Exists() && (k.Type != gjson.Number || k.Int() < 0) {
		return invalid("top_k: Input should be a non-negative integer")
	}
	ss := root.Get("stop_sequences")
	if !ss.Exists() {
		return nil
	}
	if !ss.IsArray() {
		return invalid("stop_sequences: Input should be a valid list")
	}
	for _, s := range ss.Array() {
		switch {
		case s.Type != gjson.String:
			return invalid("stop_sequences: Input should be a valid string")
		case s.Str == "":
			return invalid("stop_sequences: each stop sequence must be non-empty")
		case strings.TrimSpace(s.Str) == "":
			return invalid("stop_sequences: each stop sequence must contain non-whitespace")
		}
		q.stop = append(q.stop, s.Str)
	}
	return nil
}

// checkSystem checks system: a string, or non-empty text blocks.
func (q *request) checkSystem(root gjson.Result) error {
	sys := root.Get("system")
	switch {
	case !sys.Exists():
		return nil
	case sys.Type == gjson.String:
		q.prompt += countWords(sys.Str)
		return nil
	case !sys.IsArray():
		return invalid("system: Input should be a valid string or list")
	}
	for i, b := range sys.Array() {
		p := at("system", i)
		if b.Get("type").Str != "text" {
			return invalid("%s.type: Input should be 'text'", p)
		}
		if err := checkText(p, b); err != nil {
			return err
		}
		q.prompt += countWords(b.Get("text").Str)
	}
	return nil
}

// checkModel answers 404 for a model the fake does not serve, then checks
// what depends on the model.
func (q *request) checkModel(root gjson.Result) error {
	limit, ok := maxOutput(q.model)
	if !ok {
		return errModel(q.model)
	}
	if q.maxTokens > limit {
		return invalid("max_tokens: %d > %d, which is the maximum allowed number of output tokens for %s", q.maxTokens, limit, q.model)
	}
	if root.Get("temperature").Exists() && root.Get("top_p").Exists() && exclusiveSampling(q.model) {
		return invalid("`temperature` and `top_p` cannot both be specified for this model. Please use only one.")
	}
	if err := q.checkThinkingModel(root); err != nil {
		return err
	}
	return q.checkThinkingTurn(root)
}

// countWords counts whitespace-separated words.
func countWords(s string) int { return len(strings.Fields(s)) }
