package anthropic

import (
	"math"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/provider"
)

// defaultMaxTokens is max_tokens when neither the client nor the catalogue
// gives one: Anthropic requires the field.
const defaultMaxTokens = 4096

// translateRequest builds the Messages API body for r, and reports whether
// the client used the legacy functions (answers then use function_call).
// A request Anthropic cannot express is refused with a KindBadRequest
// *provider.Error naming the field.
func translateRequest(r *provider.Request, stream bool) ([]byte, bool, error) {
	if !gjson.ValidBytes(r.Body) {
		return nil, false, refuse("", "The request body is not valid JSON.")
	}
	root := gjson.ParseBytes(r.Body)
	if !root.IsObject() {
		return nil, false, refuse("", "The request body must be a JSON object.")
	}
	if err := checkUnsupported(root); err != nil {
		return nil, false, err
	}
	conv, err := convertMessages(root.Get("messages"))
	if err != nil {
		return nil, false, err
	}
	legacy := present(root.Get("functions"))
	out := messagesRequest{Model: r.UpstreamModel, MaxTokens: maxTokens(root, r.MaxOutputTokens), Stream: stream}
	thinking, err := setReasoning(&out, root, r)
	if err != nil {
		return nil, false, err
	}
	out.Messages = conv.messages(thinking)
	setSampling(&out, root)
	if err := setTools(&out, root, legacy, conv.names); err != nil {
		return nil, false, err
	}
	if thinking {
		thinkingSampling(&out, root)
		if err := checkForcedTool(&out, legacy); err != nil {
			return nil, false, err
		}
	}
	setFormat(&out, conv, root.Get("response_format"), r.StructuredOutputs)
	b, err := marshal(out)
	if err != nil {
		return nil, false, refuse("", "The request cannot be encoded: %v", err)
	}
	return b, legacy, nil
}

// present reports whether v is set: OpenAI treats null as absent.
func present(v gjson.Result) bool { return v.Exists() && v.Type != gjson.Null }

// checkUnsupported refuses what Anthropic cannot do and the client would
// notice missing: several choices, log probabilities, audio output.
func checkUnsupported(root gjson.Result) error {
	if n := root.Get("n"); n.Type == gjson.Number && n.Float() > 1 {
		return unsupported("n", "n > 1 is not supported for Anthropic models; send separate requests instead.")
	}
	if root.Get("logprobs").Type == gjson.True {
		return unsupported("logprobs", "logprobs is not supported for Anthropic models.")
	}
	if present(root.Get("audio")) {
		return unsupported("audio", "Audio output is not supported for Anthropic models.")
	}
	for _, m := range root.Get("modalities").Array() {
		if m.Str == "audio" {
			return unsupported("modalities", "Audio output is not supported for Anthropic models.")
		}
	}
	return nil
}

// maxTokens is max_completion_tokens, else max_tokens, else the
// catalogue's output limit, else 4096; a client value above the
// catalogue's limit is lowered to it.
func maxTokens(root gjson.Result, limit int) int {
	n := 0
	for _, f := range [...]string{"max_completion_tokens", "max_tokens"} {
		if v := root.Get(f); v.Type == gjson.Number && v.Float() >= 1 {
			n = int(min(v.Float(), math.MaxInt32))
			break
		}
	}
	switch {
	case n == 0 && limit > 0:
		return limit
	case n == 0:
		return defaultMaxTokens
	case limit > 0 && n > limit:
		return limit
	}
	return n
}

// setSampling sets temperature (clamped to Anthropic's 0–1), or top_p
// when there is no temperature (recent models refuse both), the stop
// sequences and the end-user ID.
func setSampling(out *messagesRequest, root gjson.Result) {
	if t := root.Get("temperature"); t.Type == gjson.Number {
		v := min(max(t.Float(), 0), 1)
		out.Temperature = &v
	} else if p := root.Get("top_p"); p.Type == gjson.Number {
		v := min(max(p.Float(), 0), 1)
		out.TopP = &v
	}
	out.StopSequences = stopSequences(root.Get("stop"))
	user := root.Get("user")
	if user.Type != gjson.String || user.Str == "" {
		user = root.Get("safety_identifier")
	}
	if user.Type == gjson.String && user.Str != "" {
		out.Metadata = &requestMetadata{UserID: user.Str}
	}
}

// stopSequences reads stop (a string or an array of strings), leaving out
// sequences Anthropic rejects: empty or whitespace only.
func stopSequences(stop gjson.Result) []string {
	list := []gjson.Result{stop}
	if stop.IsArray() {
		list = stop.Array()
	}
	var out []string
	for _, s := range list {
		if s.Type == gjson.String && strings.TrimSpace(s.Str) != "" {
			out = append(out, s.Str)
		}
	}
	return out
}

// setFormat constrains the answer to response_format's JSON schema
// natively when the model can, else asks for JSON in the system prompt.
func setFormat(out *messagesRequest, conv *conversation, rf gjson.Result, native bool) {
	if f := jsonFormat(rf, native); f != nil {
		if out.OutputConfig == nil {
			out.OutputConfig = &outputConfig{}
		}
		out.OutputConfig.Format = f
		out.System = conv.systemField("")
		return
	}
	out.System = conv.systemField(formatInstruction(rf))
}

// jsonInstruction approximates response_format json_object (and
// json_schema) with a system instruction: Anthropic has no JSON mode.
const jsonInstruction = "Respond with a single valid JSON object and nothing else: no prose before or after it and no code fences."

// formatInstruction returns the system instruction for response_format,
// or "" for text and none.
func formatInstruction(rf gjson.Result) string {
	switch rf.Get("type").Str {
	case "json_object":
		return jsonInstruction
	case "json_schema":
		schema := rf.Get("json_schema.schema")
		if !schema.IsObject() {
			return jsonInstruction
		}
		var b strings.Builder
		b.WriteString(jsonInstruction)
		b.WriteString(" The object must conform to this JSON Schema")
		if name := rf.Get("json_schema.name").Str; name != "" {
			b.WriteString(" (" + name + ")")
		}
		b.WriteString(":\n")
		b.WriteString(compactRaw(schema))
		return b.String()
	}
	return ""
}
