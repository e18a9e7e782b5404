package anthropic

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/tidwall/gjson"
)

// startText opens a conversation that would otherwise begin with the
// assistant (or hold only system messages): Anthropic wants a user turn
// first, and text blocks must not be empty.
const startText = "(conversation start)"

// conversation is the messages array being translated into alternating
// user and assistant turns.
type conversation struct {
	system []string
	turns  []*turn
	calls  []*call         // tool calls of the latest assistant turn
	ids    map[string]bool // tool_use ids given out so far
	names  []string        // tool names the history uses
}

// turn is one Anthropic message; in a user turn the tool results go
// first, in an assistant turn the thinking blocks.
type turn struct {
	role     string
	results  []block
	thinking []block
	blocks   []block
}

// call is a tool call awaiting its result.
type call struct {
	clientID string // the client's id; "" for a legacy function_call
	id       string // the tool_use id sent upstream
	name     string // the client's function name
	legacy   bool   // a function_call, answered by name
	answered bool
}

// convertMessages translates the messages array.
func convertMessages(msgs gjson.Result) (*conversation, error) {
	if !msgs.IsArray() {
		return nil, refuse("messages", "Expected an array of messages.")
	}
	arr := msgs.Array()
	if len(arr) == 0 {
		return nil, refuse("messages", "Expected at least 1 message.")
	}
	c := &conversation{ids: map[string]bool{}}
	for i, m := range arr {
		if err := c.add(i, m); err != nil {
			return nil, err
		}
	}
	if err := c.closeCalls(); err != nil {
		return nil, err
	}
	c.finish()
	return c, nil
}

func (c *conversation) add(i int, m gjson.Result) error {
	p := "messages[" + strconv.Itoa(i) + "]"
	if !m.IsObject() {
		return refuse(p, "Expected a message object.")
	}
	switch role := m.Get("role"); role.Str {
	case "system", "developer":
		return c.addSystem(p+".content", m.Get("content"))
	case "user":
		blocks, err := userBlocks(p+".content", m.Get("content"))
		if err == nil && len(blocks) > 0 {
			t := c.turn("user")
			t.blocks = append(t.blocks, blocks...)
		}
		return err
	case "assistant":
		return c.addAssistant(i, p, m)
	case "tool":
		return c.addToolResult(p, m)
	case "function":
		return c.addFunctionResult(p, m)
	default:
		return refuse(p+".role", "Expected one of system, developer, user, assistant, tool, function, got %s.", role.Raw)
	}
}

// turn returns the last turn when it has role, else a new one.
func (c *conversation) turn(role string) *turn {
	if n := len(c.turns); n > 0 && c.turns[n-1].role == role {
		return c.turns[n-1]
	}
	t := &turn{role: role}
	c.turns = append(c.turns, t)
	return t
}

func (c *conversation) lastRole() string {
	if len(c.turns) == 0 {
		return ""
	}
	return c.turns[len(c.turns)-1].role
}

func (c *conversation) addSystem(p string, content gjson.Result) error {
	texts, err := textParts(p, content, false)
	for _, t := range texts {
		c.system = append(c.system, t.Text)
	}
	return err
}

// addAssistant adds text and tool calls. Starting a new assistant turn
// closes the previous one's calls: all must have had their results.
func (c *conversation) addAssistant(i int, p string, m gjson.Result) error {
	blocks, err := textParts(p+".content", m.Get("content"), true)
	if err != nil {
		return err
	}
	if r := m.Get("refusal"); len(blocks) == 0 && r.Type == gjson.String {
		blocks = textBlock(nil, r.Str)
	}
	thinking, err := thinkingBlocks(p+".thinking_blocks", m.Get("thinking_blocks"))
	if err != nil {
		return err
	}
	hasCalls := len(m.Get("tool_calls").Array()) > 0 || present(m.Get("function_call"))
	if len(blocks) == 0 && !hasCalls {
		return nil // nothing to say (thinking alone included): Anthropic rejects empty turns
	}
	if c.lastRole() != "assistant" {
		if err := c.closeCalls(); err != nil {
			return err
		}
	}
	uses, err := c.toolUses(i, p, m)
	if err != nil {
		return err
	}
	t := c.turn("assistant")
	t.thinking = append(t.thinking, thinking...)
	t.blocks = append(append(t.blocks, blocks...), uses...)
	return nil
}

// closeCalls checks that every call of the latest assistant turn was
// answered, as OpenAI does, and forgets them.
func (c *conversation) closeCalls() error {
	var missing []string
	for _, cl := range c.calls {
		if !cl.answered {
			missing = append(missing, firstOf(cl.clientID, cl.name))
		}
	}
	c.calls = c.calls[:0]
	if len(missing) > 0 {
		return refuse("messages", "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: %s", strings.Join(missing, ", "))
	}
	return nil
}

// firstOf returns the first non-empty string.
func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// toolUses translates tool_calls and a legacy function_call into tool_use
// blocks, noting each as a call awaiting its result.
func (c *conversation) toolUses(i int, p string, m gjson.Result) ([]block, error) {
	var out []block
	for j, tc := range m.Get("tool_calls").Array() {
		cp := fmt.Sprintf("%s.tool_calls[%d]", p, j)
		id := tc.Get("id")
		if id.Type != gjson.String {
			return nil, refuse(cp+".id", "Expected a string.")
		}
		if slices.ContainsFunc(c.calls, func(cl *call) bool { return !cl.legacy && cl.clientID == id.Str }) {
			return nil, refuse(cp+".id", "Duplicate tool call id %q.", id.Str)
		}
		b, err := c.toolUse(cp+".function", &call{clientID: id.Str, id: sanitizeID(id.Str)}, i, tc.Get("function"))
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	if fc := m.Get("function_call"); present(fc) {
		b, err := c.toolUse(p+".function_call", &call{id: legacyID(i), legacy: true}, i, fc)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// toolUse completes cl from fn and notes it as awaiting its result.
func (c *conversation) toolUse(p string, cl *call, i int, fn gjson.Result) (block, error) {
	name := fn.Get("name")
	if name.Type != gjson.String || name.Str == "" {
		return block{}, refuse(p+".name", "Expected a function name.")
	}
	cl.id, cl.name = c.uniqueID(cl.id, i), name.Str
	c.calls = append(c.calls, cl)
	tn := toolName(name.Str)
	if !slices.Contains(c.names, tn) {
		c.names = append(c.names, tn)
	}
	return block{Type: "tool_use", ID: cl.id, Name: tn, Input: toolInput(fn.Get("arguments"))}, nil
}

// uniqueID returns id, or when an earlier turn used it already (clients
// that number calls per turn), id with the message index appended.
func (c *conversation) uniqueID(base string, i int) string {
	id := base
	for k := 0; c.ids[id]; k++ {
		suffix := "_" + strconv.Itoa(i)
		if k > 0 {
			suffix += "_" + strconv.Itoa(k)
		}
		id = base[:min(len(base), max(maxIDLen-len(suffix), 1))] + suffix
	}
	c.ids[id] = true
	return id
}

// finish makes the turns acceptable as a whole: a user turn first, and no
// trailing whitespace at the end of a final assistant turn (a prefill).
func (c *conversation) finish() {
	if len(c.turns) == 0 || c.turns[0].role != "user" {
		c.turns = slices.Insert(c.turns, 0, &turn{role: "user", blocks: []block{{Type: "text", Text: startText}}})
	}
	last := c.turns[len(c.turns)-1]
	if last.role != "assistant" {
		return
	}
	if b := &last.blocks[len(last.blocks)-1]; b.Type == "text" {
		b.Text = strings.TrimRightFunc(b.Text, unicode.IsSpace)
	}
}

// systemField is the system prompt: absent, a string, or text blocks when
// there are several; extra (the JSON mode instruction) comes last.
func (c *conversation) systemField(extra string) any {
	texts := c.system
	if extra != "" {
		texts = append(slices.Clip(texts), extra)
	}
	switch len(texts) {
	case 0:
		return nil
	case 1:
		return texts[0]
	}
	blocks := make([]block, len(texts))
	for i, t := range texts {
		blocks[i] = block{Type: "text", Text: t}
	}
	return blocks
}

// messages returns the turns; a turn of one text block is sent as a
// string. Thinking blocks open their assistant turns when thinking is on;
// otherwise they are left out: Anthropic ignores them in earlier turns
// and refuses them in the last assistant turn.
func (c *conversation) messages(thinking bool) []message {
	out := make([]message, len(c.turns))
	for i, t := range c.turns {
		var blocks []block
		if thinking {
			blocks = append(blocks, t.thinking...)
		}
		blocks = append(append(blocks, t.results...), t.blocks...)
		out[i] = message{Role: t.role, Content: blocks}
		if len(blocks) == 1 && blocks[0].Type == "text" {
			out[i].Content = blocks[0].Text
		}
	}
	return out
}
