package api

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchyard-gw/switchyard/internal/auth"
	"github.com/switchyard-gw/switchyard/internal/config"
	"github.com/switchyard-gw/switchyard/internal/jsonscan"
	"github.com/switchyard-gw/switchyard/internal/server"
)

const testKey = "sk-switchyard-AbCdEfGhIjKlMnOpQrStUvWxYz012345"

// fakeAuth accepts testKey only.
type fakeAuth struct{}

func (fakeAuth) Authenticate(_ context.Context, h string) (auth.Principal, error) {
	if h == "Bearer "+testKey {
		return auth.Principal{KeyID: "key_1", AccountID: "acct_1"}, nil
	}
	return auth.Principal{}, auth.ErrUnknown
}

// newServer serves the API through the same middleware as production.
func newServer(t *testing.T, opt Options, mut func(*config.Server)) *httptest.Server {
	t.Helper()
	opt.Auth = fakeAuth{}
	opt.Log = slog.New(slog.DiscardHandler)
	cfg := config.Default().Server
	if mut != nil {
		mut(&cfg)
	}
	s := server.New(cfg, config.TLS{}, New(opt), opt.Log)
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return ts
}

type wantErr struct {
	Status int
	Type   string
	Param  any
	Code   any
}

func call(t *testing.T, ts *httptest.Server, method, path, contentType, body string) (*http.Response, wantErr, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+testKey)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var got struct {
		Error map[string]any `json:"error"`
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("body is not JSON: %q", raw)
	}
	e := got.Error
	if e == nil {
		return resp, wantErr{Status: resp.StatusCode}, nil
	}
	return resp, wantErr{Status: resp.StatusCode, Type: e["type"].(string), Param: e["param"], Code: e["code"]}, e
}

func TestRequestErrors(t *testing.T) {
	ts := newServer(t, Options{}, func(c *config.Server) { c.MaxBodyBytes = 2048 })
	big := `{"model":"x","pad":"` + strings.Repeat("a", 4096) + `"}`
	tests := []struct {
		name, method, path, ctype, body string
		want                            wantErr
		msg                             string // substring of the message
	}{
		{"no content type", "POST", "/v1/chat/completions", "", `{"model":"m"}`,
			wantErr{400, "invalid_request_error", nil, "invalid_content_type"}, "Content-Type: application/json"},
		{"text content type", "POST", "/v1/embeddings", "text/plain", `{"model":"m"}`,
			wantErr{400, "invalid_request_error", nil, "invalid_content_type"}, "application/json"},
		{"form content type", "POST", "/v1/completions", "application/x-www-form-urlencoded", `model=m`,
			wantErr{400, "invalid_request_error", nil, "invalid_content_type"}, "application/json"},
		{"charset allowed", "POST", "/v1/chat/completions", "application/json; charset=utf-8", `{"model":"m","messages":[{"role":"user","content":"x"}]}`,
			wantErr{404, "invalid_request_error", "model", "model_not_found"}, "Model not found"},
		{"empty body", "POST", "/v1/chat/completions", "application/json", ``,
			wantErr{400, "invalid_request_error", nil, "invalid_json"}, "empty"},
		{"bad json", "POST", "/v1/chat/completions", "application/json", "{\n  \"model\": x}",
			wantErr{400, "invalid_request_error", nil, "invalid_json"}, "line 2, column"},
		{"truncated json", "POST", "/v1/chat/completions", "application/json", `{"model":"m"`,
			wantErr{400, "invalid_request_error", nil, "invalid_json"}, "unexpected end of JSON input"},
		{"trailing data", "POST", "/v1/chat/completions", "application/json", `{"model":"m"} {}`,
			wantErr{400, "invalid_request_error", nil, "invalid_json"}, "after the top-level"},
		{"array body", "POST", "/v1/chat/completions", "application/json", `[1,2]`,
			wantErr{400, "invalid_request_error", nil, "invalid_json"}, "JSON object"},
		{"missing model", "POST", "/v1/chat/completions", "application/json", `{"messages":[]}`,
			wantErr{400, "invalid_request_error", "model", "missing_required_parameter"}, "model"},
		{"null model", "POST", "/v1/embeddings", "application/json", `{"model":null}`,
			wantErr{400, "invalid_request_error", "model", "missing_required_parameter"}, "model"},
		{"numeric model", "POST", "/v1/completions", "application/json", `{"model":4}`,
			wantErr{400, "invalid_request_error", "model", "invalid_type"}, "'model'"},
		{"unknown model", "POST", "/v1/chat/completions", "application/json", `{"model":"gpt-9","messages":[{"role":"user","content":"x"}]}`,
			wantErr{404, "invalid_request_error", "model", "model_not_found"}, "Model not found"},
		{"too large", "POST", "/v1/chat/completions", "application/json", big,
			wantErr{413, "invalid_request_error", nil, "request_too_large"}, "2048 bytes"},
		{"unknown path", "POST", "/v1/nope", "application/json", `{}`,
			wantErr{404, "invalid_request_error", nil, "unknown_url"}, "/v1/nope"},
		{"unknown root path", "GET", "/", "", ``,
			wantErr{404, "invalid_request_error", nil, "unknown_url"}, "Unknown request URL"},
		{"GET on POST route", "GET", "/v1/chat/completions", "", ``,
			wantErr{405, "invalid_request_error", nil, "method_not_allowed"}, "allowed: POST"},
		{"DELETE on models", "DELETE", "/v1/models", "", ``,
			wantErr{405, "invalid_request_error", nil, "method_not_allowed"}, "GET"},
		{"POST on model", "POST", "/v1/models/gpt-4o", "application/json", `{}`,
			wantErr{405, "invalid_request_error", nil, "method_not_allowed"}, "GET"},
		{"model with slash", "GET", "/v1/models/meta-llama/Llama-3-8b", "", ``,
			wantErr{404, "invalid_request_error", "model", "model_not_found"}, "Model not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, got, e := call(t, ts, tt.method, tt.path, tt.ctype, tt.body)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if msg, _ := e["message"].(string); !strings.Contains(msg, tt.msg) {
				t.Errorf("message %q does not contain %q", msg, tt.msg)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			if resp.Header.Get("X-Request-Id") == "" {
				t.Error("no X-Request-Id")
			}
		})
	}
}

func TestModelsListing(t *testing.T) {
	catalog := newServer(t, Options{}, nil)
	resp, _, _ := call(t, catalog, "GET", "/v1/models", "", "")
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	wild := newServer(t, Options{WildcardModels: true}, nil)
	req, _ := http.NewRequest("GET", wild.URL+"/v1/models", nil)
	req.Header.Set("Authorization", "Bearer "+testKey)
	r, err := wild.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if want := `{"object":"list","data":[{"id":"*","object":"model","created":0,"owned_by":"switchyard"}]}` + "\n"; string(raw) != want {
		t.Errorf("wildcard list = %s, want %s", raw, want)
	}
	_, got, _ := call(t, wild, "GET", "/v1/models/gpt-4o", "", "")
	if diff := cmp.Diff(wantErr{400, "invalid_request_error", "model", "MISSING_CONTEXT"}, got); diff != "" {
		t.Errorf("wildcard retrieve (-want +got):\n%s", diff)
	}
}

func TestHealth(t *testing.T) {
	var ready error
	ts := newServer(t, Options{Ready: func(context.Context) error { return ready }}, nil)
	for _, path := range []string{"/healthz", "/readyz"} {
		resp, err := http.Get(ts.URL + path) // no key: health needs none
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("%s: %d", path, resp.StatusCode)
		}
	}
	ready = io.ErrUnexpectedEOF
	resp, err := http.Get(ts.URL + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 503 {
		t.Errorf("readyz with the store down: %d, want 503", resp.StatusCode)
	}
}

func TestErrorBodyShape(t *testing.T) {
	e := &Error{Status: 429, Type: "rate_limit_error", Message: "slow down", NoCode: true}
	if got, want := string(e.Body()), `{"error":{"message":"slow down","type":"rate_limit_error","param":null}}`+"\n"; got != want {
		t.Errorf("429 body = %s, want %s", got, want)
	}
	if got, want := string(ModelNotFound().Body()), `{"error":{"message":"Model not found","type":"invalid_request_error","param":"model","code":"model_not_found"}}`+"\n"; got != want {
		t.Errorf("404 body = %s, want %s", got, want)
	}
}

// TestBodyErrors: what the body check answers for each kind of bad body.
func TestBodyErrors(t *testing.T) {
	tests := []struct {
		body, param, code, msg string
	}{
		{`{"model":"a","messages":[],"model":"b"}`, "model", "duplicate_key",
			"Duplicate key 'model' in the JSON body: each key may appear once per object."},
		{`{"model":"a","MODEL":"b"}`, "MODEL", "duplicate_key",
			"Duplicate key 'MODEL' in the JSON body: it differs from 'model' only in letter case"},
		{`{"tools":[{},{"function":{"name":"a","name":"b"}}]}`, "tools[1].function.name", "duplicate_key", "'tools[1].function.name'"},
		{"{\"a\":1,\n\"a\":2", "", "invalid_json", "unexpected end of JSON input (line 2, column 5, byte offset 13)"},
		{`[{"a":1,"a":2}]`, "", "invalid_json", "must be a JSON object"},
		{" ", "", "invalid_json", "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.body, func(t *testing.T) {
			e := checkJSONObject(jsonscan.NewScanner(jsonscan.Options{FoldTopLevel: true}), []byte(tt.body))
			if e == nil {
				t.Fatal("accepted")
			}
			if e.Status != 400 || e.Type != "invalid_request_error" || e.Param != tt.param || e.Code != tt.code || !strings.Contains(e.Message, tt.msg) {
				t.Errorf("got %+v", e)
			}
		})
	}
}

func FuzzCheckJSONObject(f *testing.F) {
	for _, s := range []string{``, `{}`, `{"model":"x"}`, `[`, "{\n\"a\":}", `{"a":1} x`, `"s"`, "\xff", `{"a":1,"a":2}`, `{"model":1,"Model":2}`, `[{"a":1,"a":2}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		e := checkJSONObject(jsonscan.NewScanner(jsonscan.Options{FoldTopLevel: true}), body)
		valid := json.Valid(body)
		if e == nil && !valid {
			t.Errorf("accepted invalid JSON %q", body)
		}
		if e != nil && (e.Status != 400 || e.Message == "") {
			t.Errorf("bad error %+v", e)
		}
	})
}
