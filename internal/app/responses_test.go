package app_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/store/storetest"
	fakeopenai "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/openai"
)

// respClient sends Responses API requests with one key.
type respClient struct {
	t   *testing.T
	url string
	hdr map[string]string
}

func (g *gateway) respClient(t *testing.T, email string) respClient {
	key, _ := g.newKey(t, email)
	return respClient{t, g.URL, map[string]string{"Authorization": "Bearer " + key, "Content-Type": "application/json"}}
}

// call sends one request and returns its status and body.
func (c respClient) call(method, path, body string) (int, string) {
	c.t.Helper()
	resp, _, raw := do(c.t, method, c.url+path, c.hdr, body)
	return resp.StatusCode, raw
}

// create posts body and fails the test unless it is answered with 200.
func (c respClient) create(body string) gjson.Result {
	c.t.Helper()
	status, raw := c.call("POST", "/v1/responses", body)
	if status != 200 {
		c.t.Fatalf("create %s: %d %s", body, status, raw)
	}
	return gjson.Parse(raw)
}

// wantError checks an error answer's status, param and code.
func wantError(t *testing.T, what string, status int, raw string, wantStatus int, param, code string) {
	t.Helper()
	e := gjson.Get(raw, "error")
	if status != wantStatus || e.Get("param").Str != param || e.Get("code").Str != code {
		t.Errorf("%s: %d %s; want %d, param %q, code %q", what, status, raw, wantStatus, param, code)
	}
}

var responseIDPattern = regexp.MustCompile(`^resp_[0-9a-f]{48}$`)

// TestResponsesStoreAndContinue: a stored response reads back as it was
// sent, continues with its context sent upstream, lists its input items,
// and is gone once deleted; no other account sees it.
func TestResponsesStoreAndContinue(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		// A Llama model on an OpenAI-compatible host goes through the
		// chat translation; gpt-4o-mini to OpenAI's own Responses API.
		t.Run("translated", func(t *testing.T) { storeAndContinue(t, b, "llama-3.3-70b-instruct", responseIDPattern) })
		t.Run("native", func(t *testing.T) { storeAndContinue(t, b, "gpt-4o-mini", regexp.MustCompile(`^resp_fake[0-9]+$`)) })
	})
}

// storeAndContinue runs TestResponsesStoreAndContinue for model, whose
// response IDs match ids.
func storeAndContinue(t *testing.T, b storetest.Backend, model string, ids *regexp.Regexp) {
	t.Helper()
	up := fakeopenai.Start(fakeopenai.Options{})
	t.Cleanup(up.Close)
	g := startWith(t, b.URL, map[string]string{"OPENAI_BASE_URL": up.URL, "OPENAI_API_KEY": "test-upstream-key",
		"TOGETHER_BASE_URL": up.URL, "TOGETHER_API_KEY": "test-upstream-key"}, nil)
	c := g.respClient(t, "resp@example.com")
	create := func(body string) gjson.Result { return c.create(strings.Replace(body, "MODEL", model, 1)) }

	first := create(`{"model":"MODEL","instructions":"Be brief.","input":"What is the capital of France?"}`)
	id := first.Get("id").Str
	if !ids.MatchString(id) || first.Get("status").Str != "completed" || !first.Get("store").Bool() ||
		first.Get("previous_response_id").Type != gjson.Null {
		t.Fatalf("first response %s", first.Raw)
	}
	answer := first.Get("output.#(type==\"message\").content.0.text").Str
	if answer == "" {
		t.Fatalf("no output text in %s", first.Raw)
	}
	if status, raw := c.call("GET", "/v1/responses/"+id, ""); status != 200 || raw != first.Raw {
		t.Errorf("GET: %d %s\nwant the created object %s", status, raw, first.Raw)
	}

	second := create(`{"model":"MODEL","previous_response_id":"` + id + `","input":[{"role":"user","content":"And of Italy?"}]}`)
	if second.Get("previous_response_id").Str != id || !ids.MatchString(second.Get("id").Str) {
		t.Errorf("second response %s", second.Raw)
	}
	// Chat messages, or the native Responses body's input items.
	var sent struct {
		Messages, Input []struct {
			Role    string
			Content json.RawMessage
		}
		PreviousResponseID *string `json:"previous_response_id"`
	}
	if err := json.Unmarshal(up.Last().Body, &sent); err != nil {
		t.Fatal(err)
	}
	if sent.PreviousResponseID != nil {
		t.Errorf("previous_response_id went upstream: %s", up.Last().Body)
	}
	var got []string
	for _, m := range append(sent.Messages, sent.Input...) {
		got = append(got, m.Role+": "+textOf(m.Content))
	}
	// The first turn's instructions are not carried over; its input
	// and output are.
	want := []string{"user: What is the capital of France?", "assistant: " + answer, "user: And of Italy?"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("messages sent upstream for the continuation (-want +got):\n%s", diff)
	}

	secondID := second.Get("id").Str
	checkInputItems(t, c, secondID, answer)

	other := g.respClient(t, "other@example.com")
	status, raw := other.call("GET", "/v1/responses/"+id, "")
	wantError(t, "another account's GET", status, raw, 404, "response_id", "")
	if msg := gjson.Get(raw, "error.message").Str; msg != "Response with id '"+id+"' not found." {
		t.Errorf("404 message %q", msg)
	}
	status, raw = other.call("POST", "/v1/responses", `{"model":"`+model+`","previous_response_id":"`+id+`","input":"hi"}`)
	wantError(t, "another account's previous_response_id", status, raw, 400, "previous_response_id", "previous_response_not_found")
	status, raw = other.call("DELETE", "/v1/responses/"+id, "")
	wantError(t, "another account's DELETE", status, raw, 404, "response_id", "")

	status, raw = c.call("DELETE", "/v1/responses/"+secondID, "")
	if want := `{"id":"` + secondID + `","object":"response","deleted":true}`; status != 200 || strings.TrimSpace(raw) != want {
		t.Errorf("DELETE: %d %s, want %s", status, raw, want)
	}
	status, raw = c.call("GET", "/v1/responses/"+secondID, "")
	wantError(t, "GET after DELETE", status, raw, 404, "response_id", "")
	status, raw = c.call("DELETE", "/v1/responses/"+secondID, "")
	wantError(t, "DELETE again", status, raw, 404, "response_id", "")
	// The first response is still there.
	if status, _ := c.call("GET", "/v1/responses/"+id, ""); status != 200 {
		t.Errorf("the first response after the second's DELETE: %d", status)
	}
}

// textOf returns a chat message content's text (string or text parts).
func textOf(content json.RawMessage) string {
	c := gjson.ParseBytes(content)
	if c.Type == gjson.String {
		return c.Str
	}
	var s strings.Builder
	for _, p := range c.Array() {
		s.WriteString(p.Get("text").Str)
	}
	return s.String()
}

// checkInputItems pages through the input items of a continuation: the
// first turn's input and output, then its own input.
func checkInputItems(t *testing.T, c respClient, id, answer string) {
	t.Helper()
	status, raw := c.call("GET", "/v1/responses/"+id+"/input_items", "")
	list := gjson.Parse(raw)
	texts := func(l gjson.Result) []string {
		var out []string
		for _, it := range l.Get("data").Array() {
			out = append(out, it.Get("role").Str+": "+it.Get("content.0.text").Str)
		}
		return out
	}
	want := []string{"user: And of Italy?", "assistant: " + answer, "user: What is the capital of France?"}
	if diff := cmp.Diff(want, texts(list)); status != 200 || diff != "" || list.Get("object").Str != "list" || list.Get("has_more").Bool() {
		t.Errorf("input_items (newest first): %d %s (-want +got):\n%s", status, raw, diff)
	}
	if list.Get("first_id").Str == "" || list.Get("first_id").Str != list.Get("data.0.id").Str || list.Get("last_id").Str != list.Get("data.2.id").Str {
		t.Errorf("first_id/last_id do not name the page's ends: %s", raw)
	}
	_, raw = c.call("GET", "/v1/responses/"+id+"/input_items?order=asc&limit=2", "")
	page := gjson.Parse(raw)
	if diff := cmp.Diff([]string{want[2], want[1]}, texts(page)); diff != "" || !page.Get("has_more").Bool() {
		t.Errorf("first page of 2, oldest first: %s (-want +got):\n%s", raw, diff)
	}
	_, raw = c.call("GET", "/v1/responses/"+id+"/input_items?order=asc&limit=2&after="+page.Get("last_id").Str, "")
	page = gjson.Parse(raw)
	if diff := cmp.Diff([]string{want[0]}, texts(page)); diff != "" || page.Get("has_more").Bool() {
		t.Errorf("second page: %s (-want +got):\n%s", raw, diff)
	}
	for _, q := range []string{"limit=0", "limit=101", "order=up", "after=nope"} {
		status, raw := c.call("GET", "/v1/responses/"+id+"/input_items?"+q, "")
		wantError(t, "input_items?"+q, status, raw, 400, strings.Split(q, "=")[0], "invalid_value")
	}
}

// TestResponsesNotStored: with store:false nothing is kept.
func TestResponsesNotStored(t *testing.T) {
	_, g := upstreamGateway(t, fakeopenai.Options{}, nil)
	c := g.respClient(t, "nostore@example.com")
	r := c.create(`{"model":"gpt-4o-mini","store":false,"input":"hi"}`)
	if r.Get("store").Bool() || r.Get("status").Str != "completed" {
		t.Errorf("response %s", r.Raw)
	}
	id := r.Get("id").Str
	status, raw := c.call("GET", "/v1/responses/"+id, "")
	wantError(t, "GET", status, raw, 404, "response_id", "")
	status, raw = c.call("POST", "/v1/responses", `{"model":"gpt-4o-mini","previous_response_id":"`+id+`","input":"hi"}`)
	wantError(t, "continued", status, raw, 400, "previous_response_id", "previous_response_not_found")
}

// TestResponsesStream: each event is framed with its type, the
// lifecycle events echo previous_response_id and store, and the
// response is stored before response.completed reaches the client.
func TestResponsesStream(t *testing.T) {
	_, g := upstreamGateway(t, fakeopenai.Options{}, nil)
	c := g.respClient(t, "stream@example.com")
	prev := c.create(`{"model":"gpt-4o-mini","input":"hello"}`).Get("id").Str
	acct, _ := g.Store.AccountByEmail(context.Background(), "stream@example.com")

	var storedAtCompleted bool
	events := streamResponse(t, c, `{"model":"gpt-4o-mini","stream":true,"previous_response_id":"`+prev+`","input":"go on"}`,
		func(ev sseEvent) {
			if ev.name == "response.completed" {
				_, err := g.Store.Response(context.Background(), acct.ID, ev.data.Get("response.id").Str)
				storedAtCompleted = err == nil
			}
		})
	if len(events) < 4 || events[0].name != "response.created" || events[len(events)-1].name != "response.completed" {
		t.Fatalf("events %v", events)
	}
	for i, ev := range events {
		if ev.name != ev.data.Get("type").Str || ev.data.Get("sequence_number").Int() != int64(i) {
			t.Errorf("event %d: name %q, data %s", i, ev.name, ev.data.Raw)
		}
		if strings.HasPrefix(ev.data.Get("type").Str, "response.") && ev.data.Get("response").Exists() &&
			(ev.data.Get("response.previous_response_id").Str != prev || !ev.data.Get("response.store").Bool()) {
			t.Errorf("%s does not echo previous_response_id and store: %s", ev.name, ev.data.Raw)
		}
	}
	if !storedAtCompleted {
		t.Error("the response was not stored when response.completed reached the client")
	}
	final := events[len(events)-1].data.Get("response")
	if status, raw := c.call("GET", "/v1/responses/"+final.Get("id").Str, ""); status != 200 || raw != final.Raw {
		t.Errorf("GET: %d %s\nwant the completed event's response %s", status, raw, final.Raw)
	}
}

// TestResponsesStreamFailure: a failure after the stream started ends it
// with error and response.failed, and stores nothing.
func TestResponsesStreamFailure(t *testing.T) {
	_, g := upstreamGateway(t, fakeopenai.Options{}, nil)
	c := g.respClient(t, "fail@example.com")
	events := streamResponse(t, c, `{"model":"gpt-4o-mini","stream":true,"input":"fake:midstream-error"}`, nil)
	n := len(events)
	if n < 3 || events[n-2].name != "error" || events[n-1].name != "response.failed" {
		t.Fatalf("events %v", events)
	}
	last := events[n-1].data
	if last.Get("sequence_number").Int() != int64(n-1) || events[n-2].data.Get("sequence_number").Int() != int64(n-2) ||
		last.Get("response.status").Str != "failed" || last.Get("response.error.code").Str != "server_error" {
		t.Errorf("failure events %s %s", events[n-2].data.Raw, last.Raw)
	}
	id := events[0].data.Get("response.id").Str
	status, raw := c.call("GET", "/v1/responses/"+id, "")
	wantError(t, "GET of a failed response", status, raw, 404, "response_id", "")
}

// streamResponse posts a streaming create and returns its events, each
// passed to seen (may be nil) as it is read.
func streamResponse(t *testing.T, c respClient, body string, seen func(sseEvent)) []sseEvent {
	t.Helper()
	req, _ := http.NewRequest("POST", c.url+"/v1/responses", strings.NewReader(body))
	for k, v := range c.hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var events []sseEvent
	var name string
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data := strings.TrimPrefix(line, "data: ")
			if data == "[DONE]" || name == "" {
				t.Fatalf("event without a name, or [DONE]: %q", line)
			}
			ev := sseEvent{name, gjson.Parse(data)}
			events = append(events, ev)
			if seen != nil {
				seen(ev)
			}
			name = ""
		}
	}
	return events
}

func (e sseEvent) String() string { return e.name }
