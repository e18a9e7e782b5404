package app_test

import (
	"context"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/store"
	fakeopenai "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/openai"
)

// TestResponsesUsage: each create is metered once, as a "responses"
// request of the model that answered, with the tokens the client saw.
func TestResponsesUsage(t *testing.T) {
	_, g := upstreamGateway(t, fakeopenai.Options{}, nil)
	c := g.respClient(t, "usage@example.com")
	acct, _ := g.Store.AccountByEmail(context.Background(), "usage@example.com")
	whole := c.create(`{"model":"gpt-4o-mini","input":"count me"}`).Get("usage")
	events := streamResponse(t, c, `{"model":"gpt-4o-mini","stream":true,"input":"count me too, streaming"}`, nil)
	streamed := events[len(events)-1].data.Get("response.usage")

	waitRows(t, g.Store, acct.ID, 2)
	recs, err := g.Store.ListUsage(context.Background(), acct.ID, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int64]gjson.Result{whole.Get("input_tokens").Int(): whole, streamed.Get("input_tokens").Int(): streamed}
	if len(want) != 2 {
		t.Fatalf("the two prompts have the same size: %s %s", whole.Raw, streamed.Raw)
	}
	for _, r := range recs {
		u, ok := want[r.PromptTokens]
		if !ok || r.Endpoint != "responses" || r.Model != "gpt-4o-mini" || r.Status != 200 ||
			r.CompletionTokens != u.Get("output_tokens").Int() || r.TotalTokens != u.Get("total_tokens").Int() || r.Cost <= 0 {
			t.Errorf("record %+v; the client saw usage %s", r, u.Raw)
		}
		delete(want, r.PromptTokens)
	}
}

// TestResponsesRefusals: the gateway's own refusals, in OpenAI's shape.
func TestResponsesRefusals(t *testing.T) {
	_, g := upstreamGateway(t, fakeopenai.Options{}, nil)
	key, keyID := g.newKey(t, "refused@example.com")
	acct, _ := g.Store.AccountByEmail(context.Background(), "refused@example.com")
	one := int64(1)
	if err := g.Store.SetLimits(context.Background(), store.LimitsUpdate{AccountID: acct.ID, KeyID: keyID, RPM: &one}); err != nil {
		t.Fatal(err)
	}
	limitedC := respClient{t, g.URL, map[string]string{"Authorization": "Bearer " + key, "Content-Type": "application/json"}}
	limitedC.create(`{"model":"gpt-4o-mini","input":"first"}`)
	status, raw := limitedC.call("POST", "/v1/responses", `{"model":"gpt-4o-mini","input":"second"}`)
	if e := gjson.Get(raw, "error"); status != 429 || e.Get("type").Str != "rate_limit_error" || e.Get("code").Exists() {
		t.Errorf("over the RPM limit: %d %s", status, raw)
	}

	c := g.respClient(t, "free@example.com")
	status, raw = c.call("POST", "/v1/responses", `{"model":"no-such-model","input":"x"}`)
	wantError(t, "unknown model", status, raw, 404, "model", "model_not_found")
	// A built-in tool: OpenAI runs it for its models; for others it is
	// refused by name, not dropped.
	webSearch := func(model string) (int, string) {
		return c.call("POST", "/v1/responses", `{"model":"`+model+`","input":"x","tools":[{"type":"web_search"}]}`)
	}
	if status, raw := webSearch("gpt-4o-mini"); status != 200 {
		t.Errorf("built-in tool on gpt-4o-mini (native): %d %s", status, raw)
	}
	status, raw = webSearch("llama-3.3-70b-instruct")
	wantError(t, "built-in tool", status, raw, 400, "tools[0].type", "unsupported_value")
	if !strings.Contains(gjson.Get(raw, "error.message").Str, "web_search") {
		t.Errorf("the refusal does not name the tool: %s", raw)
	}
	status, raw = c.call("POST", "/v1/responses", `{"model":"gpt-4o-mini","input":"x","max_tokens":5}`)
	wantError(t, "a chat-only field", status, raw, 400, "max_tokens", "unknown_parameter")
	status, raw = c.call("POST", "/v1/responses", `{"model":"gpt-4o-mini","previous_response_id":"resp_nope","input":"x"}`)
	wantError(t, "unknown previous response", status, raw, 400, "previous_response_id", "previous_response_not_found")
	status, raw = c.call("POST", "/v1/responses/resp_nope/cancel", "")
	wantError(t, "cancel of an unknown response", status, raw, 404, "response_id", "")
	status, raw = c.call("PUT", "/v1/responses/resp_nope", "")
	wantError(t, "PUT", status, raw, 405, "", "method_not_allowed")
	if !strings.Contains(raw, "GET, HEAD, DELETE") {
		t.Errorf("405 does not say what is allowed: %s", raw)
	}

	id := c.create(`{"model":"gpt-4o-mini","input":"keep me"}`).Get("id").Str
	status, raw = c.call("POST", "/v1/responses/"+id+"/cancel", "")
	wantError(t, "cancel", status, raw, 400, "response_id", "")
}

// TestResponsesInputTokens counts a create body's input, with the
// context its previous_response_id continues.
func TestResponsesInputTokens(t *testing.T) {
	_, g := upstreamGateway(t, fakeopenai.Options{}, nil)
	c := g.respClient(t, "count@example.com")
	count := func(body string) int64 {
		t.Helper()
		status, raw := c.call("POST", "/v1/responses/input_tokens", body)
		if status != 200 || gjson.Get(raw, "object").Str != "response.input_tokens" {
			t.Fatalf("input_tokens: %d %s", status, raw)
		}
		return gjson.Get(raw, "input_tokens").Int()
	}
	alone := count(`{"model":"gpt-4o-mini","input":"What is the capital of France?"}`)
	id := c.create(`{"model":"gpt-4o-mini","input":"Tell me a long story about the sea and its ships."}`).Get("id").Str
	continued := count(`{"model":"gpt-4o-mini","previous_response_id":"` + id + `","input":"What is the capital of France?"}`)
	if alone <= 0 || continued <= alone {
		t.Errorf("input tokens %d alone, %d continuing a response: want 0 < alone < continued", alone, continued)
	}
	status, raw := c.call("POST", "/v1/responses/input_tokens", `{"model":"gpt-4o-mini","previous_response_id":"resp_nope","input":"x"}`)
	wantError(t, "unknown previous response", status, raw, 400, "previous_response_id", "previous_response_not_found")
}
