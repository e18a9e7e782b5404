package responses

import (
	"encoding/json"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/provider"
)

// response is the Response object, its members in the order OpenAI
// sends them; every member the spec requires is always present.
type response struct {
	ID                   string          `json:"id"`
	Object               string          `json:"object"`
	CreatedAt            int64           `json:"created_at"`
	Status               string          `json:"status"`
	Background           bool            `json:"background"`
	CompletedAt          int64           `json:"completed_at,omitempty"`
	Error                *respError      `json:"error"`
	IncompleteDetails    *incomplete     `json:"incomplete_details"`
	Instructions         *string         `json:"instructions"`
	MaxOutputTokens      *int64          `json:"max_output_tokens"`
	MaxToolCalls         json.RawMessage `json:"max_tool_calls"`
	Model                string          `json:"model"`
	Output               []any           `json:"output"`
	ParallelToolCalls    bool            `json:"parallel_tool_calls"`
	PreviousResponseID   *string         `json:"previous_response_id"`
	PromptCacheKey       *string         `json:"prompt_cache_key"`
	PromptCacheRetention *string         `json:"prompt_cache_retention"`
	Reasoning            reasoningEcho   `json:"reasoning"`
	SafetyIdentifier     *string         `json:"safety_identifier"`
	ServiceTier          string          `json:"service_tier"`
	Store                bool            `json:"store"`
	Temperature          json.RawMessage `json:"temperature"`
	Text                 textEcho        `json:"text"`
	ToolChoice           json.RawMessage `json:"tool_choice"`
	Tools                []functionTool  `json:"tools"`
	TopLogprobs          json.RawMessage `json:"top_logprobs"`
	TopP                 json.RawMessage `json:"top_p"`
	Truncation           string          `json:"truncation"`
	Usage                *usage          `json:"usage"`
	User                 *string         `json:"user"`
	Metadata             json.RawMessage `json:"metadata"`
}

type respError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type incomplete struct {
	Reason string `json:"reason"`
}

type reasoningEcho struct {
	Effort  *string `json:"effort"`
	Summary *string `json:"summary"`
}

type textEcho struct {
	Format    json.RawMessage `json:"format"`
	Verbosity string          `json:"verbosity"`
}

// usage is the Responses usage object.
type usage struct {
	InputTokens   int           `json:"input_tokens"`
	InputDetails  inputDetails  `json:"input_tokens_details"`
	OutputTokens  int           `json:"output_tokens"`
	OutputDetails outputDetails `json:"output_tokens_details"`
	TotalTokens   int           `json:"total_tokens"`
}

type inputDetails struct {
	CachedTokens     int `json:"cached_tokens"`
	CacheWriteTokens int `json:"cache_write_tokens"`
}

type outputDetails struct {
	ReasoningTokens int `json:"reasoning_tokens"`
}

// usageOf maps a chat usage object, or the provider's count when the
// answer carries none.
func usageOf(u gjson.Result, fallback provider.Usage) *usage {
	if !u.IsObject() {
		return &usage{InputTokens: fallback.PromptTokens, OutputTokens: fallback.CompletionTokens,
			InputDetails:  inputDetails{CachedTokens: fallback.CachedTokens},
			OutputDetails: outputDetails{ReasoningTokens: fallback.ReasoningTokens},
			TotalTokens:   fallback.PromptTokens + fallback.CompletionTokens}
	}
	in, out := int(u.Get("prompt_tokens").Int()), int(u.Get("completion_tokens").Int())
	return &usage{
		InputTokens: in, OutputTokens: out, TotalTokens: in + out,
		InputDetails: inputDetails{CachedTokens: int(u.Get("prompt_tokens_details.cached_tokens").Int()),
			CacheWriteTokens: int(u.Get("prompt_tokens_details.cache_write_tokens").Int())},
		OutputDetails: outputDetails{ReasoningTokens: int(u.Get("completion_tokens_details.reasoning_tokens").Int())},
	}
}

// orNull returns &s, or nil for "".
func orNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// orDefault returns v, or def when v is nil.
func orDefault(v json.RawMessage, def string) json.RawMessage {
	if v == nil {
		return json.RawMessage(def)
	}
	return v
}

// echo returns the response to r in progress: its settings echoed with
// the defaults filled in, no output and no usage yet.
func (r *Request) echo(id string, createdAt int64, model string) *response {
	tools := r.tools
	if tools == nil {
		tools = []functionTool{}
	}
	tier := r.serviceTier
	if tier == "" {
		tier = "auto"
	}
	verbosity := r.verbosity
	if verbosity == "" {
		verbosity = "medium"
	}
	return &response{
		ID: id, Object: "response", CreatedAt: createdAt, Status: "in_progress",
		Instructions: r.instructions, MaxOutputTokens: r.maxOutput,
		MaxToolCalls: r.maxToolCalls, Model: model, Output: []any{},
		ParallelToolCalls: r.parallel == nil || *r.parallel, PreviousResponseID: orNull(r.PreviousResponseID),
		PromptCacheKey: orNull(r.cacheKey), PromptCacheRetention: orNull(r.cacheRetention),
		Reasoning:        reasoningEcho{orNull(r.effort), orNull(r.summary)},
		SafetyIdentifier: orNull(r.safetyID), ServiceTier: tier, Store: r.Store,
		Temperature: orDefault(r.temperature, "1.0"),
		Text:        textEcho{orDefault(r.format, `{"type":"text"}`), verbosity},
		ToolChoice:  orDefault(r.toolChoice, `"auto"`), Tools: tools,
		TopLogprobs: orDefault(r.topLogprobs, "0"), TopP: orDefault(r.topP, "1.0"),
		Truncation: orDefaultString(r.truncation, "disabled"), User: orNull(r.user),
		Metadata: orDefault(r.metadata, "{}"),
	}
}

func orDefaultString(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// finish sets the terminal status of x from the chat finish reason, and
// the service tier the upstream reports (or "default" for "auto").
func (x *response) finish(reason, tier string, completedAt int64) {
	switch reason {
	case "length":
		x.Status, x.IncompleteDetails = "incomplete", &incomplete{"max_output_tokens"}
	case "content_filter":
		x.Status, x.IncompleteDetails = "incomplete", &incomplete{"content_filter"}
	default:
		x.Status, x.CompletedAt = "completed", completedAt
	}
	switch {
	case tier != "":
		x.ServiceTier = tier
	case x.ServiceTier == "auto":
		x.ServiceTier = "default"
	}
}
