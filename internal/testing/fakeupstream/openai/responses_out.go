package fakeopenai

import (
	"encoding/json"
	"time"

	"github.com/tidwall/gjson"
)

// The Responses API's response object (inbound-apis 2), its fields in the
// order OpenAI sends them.
type respObject struct {
	ID                   string          `json:"id"`
	Object               string          `json:"object"`
	CreatedAt            int64           `json:"created_at"`
	Status               string          `json:"status"`
	Background           bool            `json:"background"`
	CompletedAt          *int64          `json:"completed_at,omitempty"`
	Error                *respError      `json:"error"`
	IncompleteDetails    *incomplete     `json:"incomplete_details"`
	Instructions         json.RawMessage `json:"instructions"`
	MaxOutputTokens      json.RawMessage `json:"max_output_tokens"`
	MaxToolCalls         json.RawMessage `json:"max_tool_calls"`
	Model                string          `json:"model"`
	Output               []respItem      `json:"output"`
	ParallelToolCalls    json.RawMessage `json:"parallel_tool_calls"`
	PreviousResponseID   *string         `json:"previous_response_id"`
	PromptCacheKey       json.RawMessage `json:"prompt_cache_key"`
	PromptCacheRetention json.RawMessage `json:"prompt_cache_retention"`
	Reasoning            respReasoning   `json:"reasoning"`
	SafetyIdentifier     json.RawMessage `json:"safety_identifier"`
	ServiceTier          string          `json:"service_tier"`
	Store                json.RawMessage `json:"store"`
	Temperature          json.RawMessage `json:"temperature"`
	Text                 json.RawMessage `json:"text"`
	ToolChoice           json.RawMessage `json:"tool_choice"`
	Tools                json.RawMessage `json:"tools"`
	TopLogprobs          json.RawMessage `json:"top_logprobs"`
	TopP                 json.RawMessage `json:"top_p"`
	Truncation           json.RawMessage `json:"truncation"`
	Usage                *respUsage      `json:"usage"`
	User                 json.RawMessage `json:"user"`
	Metadata             json.RawMessage `json:"metadata"`
}

type respError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type incomplete struct {
	Reason string `json:"reason"`
}

type respReasoning struct {
	Effort  *string `json:"effort"`
	Summary *string `json:"summary"`
}

// respItem is an output item; the fields of the other types are left out.
type respItem struct {
	ID               string         `json:"id"`
	Type             string         `json:"type"`
	Status           string         `json:"status,omitempty"` // reasoning items have none
	EncryptedContent *string        `json:"encrypted_content,omitempty"`
	Summary          *[]summaryPart `json:"summary,omitempty"`
	Content          *[]outputText  `json:"content,omitempty"`
	Arguments        *string        `json:"arguments,omitempty"`
	CallID           string         `json:"call_id,omitempty"`
	Name             string         `json:"name,omitempty"`
	Role             string         `json:"role,omitempty"`
}

type summaryPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type outputText struct {
	Type        string     `json:"type"`
	Annotations []struct{} `json:"annotations"`
	Logprobs    []struct{} `json:"logprobs"`
	Text        string     `json:"text"`
}

func newOutputText(text string) outputText {
	return outputText{Type: "output_text", Annotations: []struct{}{}, Logprobs: []struct{}{}, Text: text}
}

type respUsage struct {
	InputTokens  int `json:"input_tokens"`
	InputDetails struct {
		CachedTokens     int `json:"cached_tokens"`
		CacheWriteTokens int `json:"cache_write_tokens"`
	} `json:"input_tokens_details"`
	OutputTokens  int `json:"output_tokens"`
	OutputDetails struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
	TotalTokens int `json:"total_tokens"`
}

// statusOf is a finished answer's status.
func statusOf(a *respAnswer) string {
	if a.cut {
		return "incomplete"
	}
	return "completed"
}

// echo is the request's value at path, else def (JSON).
func (q *respRequest) echo(path, def string) json.RawMessage {
	if v := q.root.Get(path); present(v) {
		return json.RawMessage(v.Raw)
	}
	return json.RawMessage(def)
}

// response is the response object in status: "in_progress" (no output,
// no usage), "completed", "incomplete" or "failed".
func (q *respRequest) response(a *respAnswer, status string) *respObject {
	r := &respObject{
		ID: a.ids.response(), Object: "response", CreatedAt: time.Now().Unix(), Status: status,
		Instructions: q.echo("instructions", "null"), MaxOutputTokens: q.echo("max_output_tokens", "null"),
		MaxToolCalls: q.echo("max_tool_calls", "null"), Model: q.model, Output: []respItem{},
		ParallelToolCalls: q.echo("parallel_tool_calls", "true"), PromptCacheKey: q.echo("prompt_cache_key", "null"),
		PromptCacheRetention: q.echo("prompt_cache_retention", "null"), Reasoning: q.reasoningEcho(),
		SafetyIdentifier: q.echo("safety_identifier", "null"), ServiceTier: "default", Store: q.echo("store", "true"),
		Temperature: q.echo("temperature", "1.0"), Text: q.textEcho(), ToolChoice: q.echo("tool_choice", `"auto"`),
		Tools: q.echo("tools", "[]"), TopLogprobs: q.echo("top_logprobs", "0"), TopP: q.echo("top_p", "1.0"),
		Truncation: q.echo("truncation", `"disabled"`), User: q.echo("user", "null"), Metadata: q.echo("metadata", "{}"),
	}
	switch status {
	case "in_progress":
		r.ServiceTier = "auto"
		return r
	case "completed":
		now := time.Now().Unix()
		r.CompletedAt = &now
	case "incomplete":
		r.IncompleteDetails = &incomplete{Reason: "max_output_tokens"}
	case "failed":
		r.Error = &respError{Code: "server_error", Message: midstreamMessage}
	}
	r.Output = q.output(a, status)
	if status != "failed" {
		r.Usage = q.usage(a)
	}
	return r
}

func (q *respRequest) reasoningEcho() respReasoning {
	if !q.reasoning {
		return respReasoning{}
	}
	effort := q.root.Get("reasoning.effort").Str
	if effort == "" {
		effort = "medium"
	}
	r := respReasoning{Effort: &effort}
	if s := q.root.Get("reasoning.summary"); present(s) {
		r.Summary = &s.Str
	}
	return r
}

func (q *respRequest) textEcho() json.RawMessage {
	format := `{"type":"text"}`
	if q.format.Exists() {
		format = q.format.Raw
	}
	verbosity := q.root.Get("text.verbosity").Str
	if verbosity == "" {
		verbosity = "medium"
	}
	return json.RawMessage(`{"format":` + format + `,"verbosity":` + string(gjson.AppendJSONString(nil, verbosity)) + `}`)
}

func (q *respRequest) usage(a *respAnswer) *respUsage {
	u := &respUsage{InputTokens: q.prompt, OutputTokens: a.tokens + a.reasoning}
	u.InputDetails.CachedTokens = q.cached
	u.OutputDetails.ReasoningTokens = a.reasoning
	u.TotalTokens = u.InputTokens + u.OutputTokens
	return u
}
