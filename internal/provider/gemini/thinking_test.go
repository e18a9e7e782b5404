package gemini

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/provider"
	fakegemini "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/gemini"
)

// reasoningOf is how the catalogue steers a Gemini model's thinking.
func reasoningOf(model string) catalog.Reasoning {
	switch {
	case strings.HasPrefix(model, "gemini-2.5"):
		return catalog.ReasoningBudget
	case strings.HasPrefix(model, "gemini-3"):
		return catalog.ReasoningLevel
	}
	return catalog.ReasoningNone
}

// TestThinkingConfig maps every effort for every kind of model, and
// checks that the strict fake takes each translation.
func TestThinkingConfig(t *testing.T) {
	models := []string{"gemini-2.5-flash", "gemini-2.5-flash-lite", "gemini-2.5-pro",
		"gemini-3-flash-preview", "gemini-3.1-flash-lite", "gemini-3.1-pro-preview", "gemini-2.0-flash"}
	want := map[string][]string{ // per model, for none … max
		"gemini-2.5-flash": {`{"thinkingBudget":0}`, `{"includeThoughts":true,"thinkingBudget":512}`, `{"includeThoughts":true,"thinkingBudget":1024}`,
			`{"includeThoughts":true,"thinkingBudget":8192}`, `{"includeThoughts":true,"thinkingBudget":24576}`, `{"includeThoughts":true,"thinkingBudget":24576}`, `{"includeThoughts":true,"thinkingBudget":24576}`},
		"gemini-2.5-flash-lite": {`{"thinkingBudget":0}`, `{"includeThoughts":true,"thinkingBudget":512}`, `{"includeThoughts":true,"thinkingBudget":1024}`,
			`{"includeThoughts":true,"thinkingBudget":8192}`, `{"includeThoughts":true,"thinkingBudget":24576}`, `{"includeThoughts":true,"thinkingBudget":24576}`, `{"includeThoughts":true,"thinkingBudget":24576}`},
		"gemini-2.5-pro": {`{"thinkingBudget":128}`, `{"includeThoughts":true,"thinkingBudget":128}`, `{"includeThoughts":true,"thinkingBudget":1024}`,
			`{"includeThoughts":true,"thinkingBudget":8192}`, `{"includeThoughts":true,"thinkingBudget":32768}`, `{"includeThoughts":true,"thinkingBudget":32768}`, `{"includeThoughts":true,"thinkingBudget":32768}`},
		"gemini-3-flash-preview": {`{"thinkingLevel":"minimal"}`, `{"includeThoughts":true,"thinkingLevel":"minimal"}`, `{"includeThoughts":true,"thinkingLevel":"low"}`,
			`{"includeThoughts":true,"thinkingLevel":"medium"}`, `{"includeThoughts":true,"thinkingLevel":"high"}`, `{"includeThoughts":true,"thinkingLevel":"high"}`, `{"includeThoughts":true,"thinkingLevel":"high"}`},
		"gemini-3.1-flash-lite": {`{"thinkingLevel":"minimal"}`, `{"includeThoughts":true,"thinkingLevel":"minimal"}`, `{"includeThoughts":true,"thinkingLevel":"low"}`,
			`{"includeThoughts":true,"thinkingLevel":"medium"}`, `{"includeThoughts":true,"thinkingLevel":"high"}`, `{"includeThoughts":true,"thinkingLevel":"high"}`, `{"includeThoughts":true,"thinkingLevel":"high"}`},
		"gemini-3.1-pro-preview": {`{"thinkingLevel":"low"}`, `{"includeThoughts":true,"thinkingLevel":"low"}`, `{"includeThoughts":true,"thinkingLevel":"low"}`,
			`{"includeThoughts":true,"thinkingLevel":"medium"}`, `{"includeThoughts":true,"thinkingLevel":"high"}`, `{"includeThoughts":true,"thinkingLevel":"high"}`, `{"includeThoughts":true,"thinkingLevel":"high"}`},
		"gemini-2.0-flash": {"", "", "", "", "", "", ""},
	}
	for _, model := range models {
		for i, effort := range efforts {
			t.Run(model+"/"+effort, func(t *testing.T) {
				body := `{"messages":[{"role":"user","content":"Hi"}],"reasoning_effort":"` + effort + `"}`
				r := &provider.Request{Model: "m", UpstreamModel: model, Reasoning: reasoningOf(model), Body: []byte(body)}
				req, err := translateChat(r)
				if err != nil {
					t.Fatal(err)
				}
				got := gjson.GetBytes(req.body, "generationConfig.thinkingConfig").Raw
				if diff := cmp.Diff(want[model][i], got); diff != "" {
					t.Errorf("thinkingConfig (-want +got):\n%s", diff)
				}
				if err := fakegemini.CheckGenerate(model, req.body); err != nil {
					t.Errorf("the fake refuses %s: %v", req.body, err)
				}
			})
		}
	}
}

// TestThinkingRefused: an effort that is not one refuses the request,
// whatever the model; no effort sends no thinkingConfig.
func TestThinkingRefused(t *testing.T) {
	for _, tt := range []struct{ name, effort, model, wantErr string }{
		{"unknown", `"extreme"`, "gemini-2.5-flash", "reasoning_effort"},
		{"unknown, model without thinking", `"extreme"`, "gemini-2.0-flash", "reasoning_effort"},
		{"not a string", `3`, "gemini-3-flash-preview", "reasoning_effort"},
		{"upper case", `"HIGH"`, "gemini-3-flash-preview", "reasoning_effort"},
		{"null is absent", `null`, "gemini-3-flash-preview", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			body := `{"messages":[{"role":"user","content":"Hi"}],"reasoning_effort":` + tt.effort + `}`
			r := &provider.Request{UpstreamModel: tt.model, Reasoning: reasoningOf(tt.model), Body: []byte(body)}
			req, err := translateChat(r)
			var pe *provider.Error
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatal(err)
			case tt.wantErr == "":
				if tc := gjson.GetBytes(req.body, "generationConfig.thinkingConfig"); tc.Exists() {
					t.Errorf("thinkingConfig sent: %s", tc.Raw)
				}
			case !errors.As(err, &pe) || pe.Param != tt.wantErr || pe.Kind != provider.KindBadRequest:
				t.Errorf("error %v, want a 400 naming %s", err, tt.wantErr)
			}
		})
	}
}

// TestReasoningHistoryDropped: reasoning_content and thinking_blocks of
// assistant messages are not sent to Gemini.
func TestReasoningHistoryDropped(t *testing.T) {
	body := `{"messages":[{"role":"user","content":"Hi"},{"role":"assistant","content":"Hello","reasoning_content":"They greet.",` +
		`"thinking_blocks":[{"type":"thinking","thinking":"They greet.","signature":"c2ln"}]},{"role":"user","content":"Again"}]}`
	req, err := translateChat(&provider.Request{UpstreamModel: "gemini-2.5-flash", Reasoning: catalog.ReasoningBudget, Body: []byte(body)})
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"role":"user","parts":[{"text":"Hi"}]},{"role":"model","parts":[{"text":"Hello"}]},{"role":"user","parts":[{"text":"Again"}]}]`
	if diff := cmp.Diff(want, gjson.GetBytes(req.body, "contents").Raw); diff != "" {
		t.Errorf("contents (-want +got):\n%s", diff)
	}
}
