package fakegemini

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/fixture"
)

func start(t *testing.T, opt Options) *Server {
	t.Helper()
	s := Start(opt)
	t.Cleanup(s.Close)
	return s
}

type result struct {
	status int
	header http.Header
	body   []byte
}

// post sends body to /v1beta/models/<modelAction> with the default key;
// key "" sends none.
func post(t *testing.T, s *Server, modelAction, key, body string) result {
	t.Helper()
	req, err := http.NewRequest("POST", s.URL+"/v1beta/models/"+modelAction, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("x-goog-api-key", key)
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return result{status: resp.StatusCode, header: resp.Header, body: b}
}

func readFixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestFixturesAccepted: the shared request fixtures are valid requests.
func TestFixturesAccepted(t *testing.T) {
	s := start(t, Options{})
	files := fixture.Glob(t, "testdata/generate_request_*.json")
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			r := post(t, s, "gemini-2.5-flash:generateContent", DefaultKey, readFixture(t, filepath.Base(f)))
			if r.status != 200 || !gjson.ValidBytes(r.body) {
				t.Fatalf("status %d: %s", r.status, r.body)
			}
			if err := CheckGenerate("gemini-2.5-flash", []byte(readFixture(t, filepath.Base(f)))); err != nil {
				t.Errorf("CheckGenerate: %v", err)
			}
		})
	}
}

// valid is a minimal accepted body; the table edits it.
const valid = `{"contents":[{"role":"user","parts":[{"text":"Hi"}]}]}`

const callTurn = `{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]}`

const fTool = `"tools":[{"functionDeclarations":[{"name":"f","parameters":{"type":"object","properties":{"a":{"type":"string"}}}}]}]`

// strictCase is a request the fake refuses.
type strictCase struct {
	name, model, key, body string
	status                 int
	want                   string // in the error message
}

func TestStrict(t *testing.T) {
	checkStrict(t, []strictCase{
		{"no key", "gemini-2.5-flash", "", valid, 403, "unregistered callers"},
		{"wrong key", "gemini-2.5-flash", "nope", valid, 400, "API key not valid"},
		{"unknown model", "gemini-9.9-pro", DefaultKey, valid, 404, "models/gemini-9.9-pro is not found"},
		{"embedding model", "gemini-embedding-001", DefaultKey, valid, 404, "not supported for generateContent"},
		{"not JSON", "gemini-2.5-flash", DefaultKey, `{`, 400, "Invalid JSON payload"},
		{"unknown field", "gemini-2.5-flash", DefaultKey, `{"contents":[{"role":"user","parts":[{"text":"Hi"}]}],"model":"x"}`, 400, `Unknown name "model"`},
		{"no contents", "gemini-2.5-flash", DefaultKey, `{"contents":[]}`, 400, "contents is not specified"},
		{"empty parts", "gemini-2.5-flash", DefaultKey, `{"contents":[{"role":"user","parts":[]}]}`, 400, "contents.parts must not be empty"},
		{"empty text", "gemini-2.5-flash", DefaultKey, `{"contents":[{"role":"user","parts":[{"text":""}]}]}`, 400, "required oneof field 'data'"},
		{"two data fields", "gemini-2.5-flash", DefaultKey, `{"contents":[{"role":"user","parts":[{"text":"a","fileData":{"fileUri":"gs://x"}}]}]}`, 400, "required oneof field 'data'"},
		{"bad role", "gemini-2.5-flash", DefaultKey, `{"contents":[{"role":"assistant","parts":[{"text":"a"}]}]}`, 400, "valid role"},
		{"bad base64", "gemini-2.5-flash", DefaultKey, `{"contents":[{"role":"user","parts":[{"inlineData":{"mimeType":"image/png","data":"%%%"}}]}]}`, 400, "invalid base64"},
		{"additionalProperties", "gemini-2.5-flash", DefaultKey, `{"contents":[{"role":"user","parts":[{"text":"a"}]}],"tools":[{"functionDeclarations":[{"name":"f","parameters":{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}}]}]}`, 400, `Unknown name "additionalProperties"`},
		{"$ref", "gemini-2.5-flash", DefaultKey, `{"contents":[{"role":"user","parts":[{"text":"a"}]}],"tools":[{"functionDeclarations":[{"name":"f","parameters":{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}}}}]}]}`, 400, `Unknown name "$ref"`},
		{"empty properties", "gemini-2.5-flash", DefaultKey, `{"contents":[{"role":"user","parts":[{"text":"a"}]}],"tools":[{"functionDeclarations":[{"name":"f","parameters":{"type":"object","properties":{}}}]}]}`, 400, "should be non-empty for OBJECT type"},
		{"required not a property", "gemini-2.5-flash", DefaultKey, `{"contents":[{"role":"user","parts":[{"text":"a"}]}],"tools":[{"functionDeclarations":[{"name":"f","parameters":{"type":"object","properties":{"a":{"type":"string"}},"required":["b"]}}]}]}`, 400, "property is not defined"},
		{"bad function name", "gemini-2.5-flash", DefaultKey, `{"contents":[{"role":"user","parts":[{"text":"a"}]}],"tools":[{"functionDeclarations":[{"name":"1f"}]}]}`, 400, "Invalid function name"},
		{"call turn first", "gemini-2.5-flash", DefaultKey, `{"contents":[` + callTurn + `],` + fTool + `}`, 400, "function call turn comes immediately after a user turn"},
		{"call turn after model", "gemini-2.5-flash", DefaultKey, `{"contents":[{"role":"user","parts":[{"text":"a"}]},{"role":"model","parts":[{"text":"b"}]},` + callTurn + `],` + fTool + `}`, 400, "function call turn comes immediately after a user turn"},
		{"call not answered", "gemini-2.5-flash", DefaultKey, `{"contents":[{"role":"user","parts":[{"text":"a"}]},` + callTurn + `,{"role":"user","parts":[{"text":"b"}]}],` + fTool + `}`, 400, "followed by a function response turn"},
		{"response without call", "gemini-2.5-flash", DefaultKey, `{"contents":[{"role":"user","parts":[{"functionResponse":{"name":"f","response":{}}}]}],` + fTool + `}`, 400, "function response turn comes immediately after a function call turn"},
		{"responses miscounted", "gemini-2.5-flash", DefaultKey, `{"contents":[{"role":"user","parts":[{"text":"a"}]},` + callTurn + `,{"role":"user","parts":[{"functionResponse":{"name":"f","response":{}}},{"functionResponse":{"name":"f","response":{}}}]}],` + fTool + `}`, 400, "number of function response parts"},
		{"responses mixed with text", "gemini-2.5-flash", DefaultKey, `{"contents":[{"role":"user","parts":[{"text":"a"}]},` + callTurn + `,{"role":"user","parts":[{"functionResponse":{"name":"f","response":{}}},{"text":"more"}]}],` + fTool + `}`, 400, "contains only function responses"},
		{"gemini 3 missing signature", "gemini-3-flash-preview", DefaultKey, `{"contents":[{"role":"user","parts":[{"text":"a"}]},` + callTurn + `,{"role":"user","parts":[{"functionResponse":{"name":"f","response":{}}}]}],` + fTool + `}`, 400, "missing a thought_signature"},
		{"gemini 3 foreign signature", "gemini-3-flash-preview", DefaultKey, readFixture(t, "generate_request_tools_roundtrip.json"), 400, "not issued"},
		{"allowed names with AUTO", "gemini-2.5-flash", DefaultKey, `{"contents":[{"role":"user","parts":[{"text":"a"}]}],` + fTool + `,"toolConfig":{"functionCallingConfig":{"mode":"AUTO","allowedFunctionNames":["f"]}}}`, 400, "only allowed when mode is ANY"},
		{"tool config without tools", "gemini-2.5-flash", DefaultKey, `{"contents":[{"role":"user","parts":[{"text":"a"}]}],"toolConfig":{"functionCallingConfig":{"mode":"AUTO"}}}`, 400, "without function_declarations"},
		{"schema without JSON", "gemini-2.5-flash", DefaultKey, `{"contents":[{"role":"user","parts":[{"text":"a"}]}],"generationConfig":{"responseJsonSchema":{"type":"object"}}}`, 400, "needs response_mime_type"},
		{"temperature", "gemini-2.5-flash", DefaultKey, `{"contents":[{"role":"user","parts":[{"text":"a"}]}],"generationConfig":{"temperature":3}}`, 400, "temperature"},
		{"stop sequences", "gemini-2.5-flash", DefaultKey, `{"contents":[{"role":"user","parts":[{"text":"a"}]}],"generationConfig":{"stopSequences":["1","2","3","4","5","6"]}}`, 400, "stop_sequences"},
		{"candidates", "gemini-2.5-flash", DefaultKey, `{"contents":[{"role":"user","parts":[{"text":"a"}]}],"generationConfig":{"candidateCount":9}}`, 400, "candidateCount"},
		{"unknown generation field", "gemini-2.5-flash", DefaultKey, `{"contents":[{"role":"user","parts":[{"text":"a"}]}],"generationConfig":{"max_tokens":3}}`, 400, `Unknown name "max_tokens"`},
		{"no alt=sse", "gemini-2.5-flash", DefaultKey, valid, 400, "alt=sse"},
	})
}

// checkStrict posts each case to a fresh fake and checks its refusal.
func checkStrict(t *testing.T, cases []strictCase) {
	t.Helper()
	s := start(t, Options{})
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			action := tt.model + ":generateContent"
			if tt.name == "no alt=sse" {
				action = tt.model + ":streamGenerateContent"
			}
			r := post(t, s, action, tt.key, tt.body)
			if r.status != tt.status || !strings.Contains(gjson.GetBytes(r.body, "error.message").Str, tt.want) {
				t.Errorf("status %d body %s, want %d with %q", r.status, r.body, tt.status, tt.want)
			}
			if gjson.GetBytes(r.body, "error.code").Int() != int64(tt.status) || gjson.GetBytes(r.body, "error.status").Str == "" {
				t.Errorf("error shape: %s", r.body)
			}
		})
	}
}

func TestAnswerText(t *testing.T) {
	s := start(t, Options{})
	r := post(t, s, "gemini-2.0-flash:generateContent", DefaultKey, `{"contents":[{"role":"user","parts":[{"text":"Say hello"}]}],"generationConfig":{"maxOutputTokens":3,"candidateCount":2}}`)
	got := gjson.ParseBytes(r.body)
	want := map[string]string{
		"candidates.#":                       "2",
		"candidates.0.content.parts.0.text":  "You said: Say",
		"candidates.0.content.role":          "model",
		"candidates.0.finishReason":          "MAX_TOKENS",
		"candidates.0.index":                 "0",
		"candidates.1.index":                 "1",
		"usageMetadata.promptTokenCount":     "2",
		"usageMetadata.candidatesTokenCount": "6",
		"usageMetadata.totalTokenCount":      "8",
		"modelVersion":                       "gemini-2.0-flash",
		"usageMetadata.thoughtsTokenCount":   "",
	}
	for path, w := range want {
		if g := got.Get(path).String(); g != w {
			t.Errorf("%s = %q, want %q", path, g, w)
		}
	}
	last := s.Last()
	if last.Path != "/v1beta/models/gemini-2.0-flash:generateContent" || last.Header.Get("X-Goog-Api-Key") != DefaultKey || len(s.Requests()) != 1 {
		t.Errorf("recorded %+v", last)
	}
}

func TestAnswerFunctionCall(t *testing.T) {
	s := start(t, Options{})
	body := `{"contents":[{"role":"user","parts":[{"text":"Weather? fake:parallel"}]}],"tools":[{"functionDeclarations":[{"name":"g","parameters":{"type":"object","properties":{"n":{"type":"integer"}}}},{"name":"get_weather","parameters":{"type":"object","properties":{"location":{"type":"string"},"unit":{"type":"string","enum":["c","f"]}}}}]}],"toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["get_weather"]}}}`
	got := gjson.ParseBytes(post(t, s, "gemini-3-flash-preview:generateContent", DefaultKey, body).body)
	parts := got.Get("candidates.0.content.parts").Array()
	if len(parts) != 2 || got.Get("candidates.0.finishReason").Str != "STOP" {
		t.Fatalf("answer %s", got.Raw)
	}
	if diff := cmp.Diff(`{"name":"get_weather","args":{"location":"Paris, FR","unit":"c"}}`, parts[0].Get("functionCall").Raw); diff != "" {
		t.Errorf("call (-want +got):\n%s", diff)
	}
	sig := parts[0].Get("thoughtSignature").Str
	if !strings.Contains(sig, "+/+/") || parts[1].Get("thoughtSignature").Exists() {
		t.Errorf("signatures: %s", got.Get("candidates.0.content").Raw)
	}
	// The signed history is accepted; without the signature it is not.
	history := func(sig string) string {
		call := `{"functionCall":{"name":"get_weather","args":{}}` + map[bool]string{true: `,"thoughtSignature":"` + sig + `"`}[sig != ""] + `}`
		return `{"contents":[{"role":"user","parts":[{"text":"Weather?"}]},{"role":"model","parts":[` + call + `]},{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"t":1}}}]}],"tools":[{"functionDeclarations":[{"name":"get_weather"}]}]}`
	}
	for sig, status := range map[string]int{sig: 200, skipSignature: 200, "": 400} {
		if r := post(t, s, "gemini-3-flash-preview:generateContent", DefaultKey, history(sig)); r.status != status {
			t.Errorf("signature %q: status %d, want %d: %s", sig, r.status, status, r.body)
		}
	}
	r := post(t, s, "gemini-3-flash-preview:generateContent", DefaultKey, history(sig))
	if diff := cmp.Diff(`The function get_weather returned {"t":1}.`, gjson.GetBytes(r.body, "candidates.0.content.parts.0.text").Str); diff != "" {
		t.Errorf("answer to the response (-want +got):\n%s", diff)
	}
}

func TestTriggers(t *testing.T) {
	s := start(t, Options{})
	for _, tt := range []struct {
		trigger, status string
		code            int
	}{
		{"fake:error:400", "INVALID_ARGUMENT", 400},
		{"fake:badkey", "INVALID_ARGUMENT", 400},
		{"fake:error:403", "PERMISSION_DENIED", 403},
		{"fake:error:404", "NOT_FOUND", 404},
		{"fake:error:429", "RESOURCE_EXHAUSTED", 429},
		{"fake:error:500", "INTERNAL", 500},
		{"fake:error:503", "UNAVAILABLE", 503},
		{"fake:error:504", "DEADLINE_EXCEEDED", 504},
		{"fake:midstream-error", "INTERNAL", 500},
		{"fake:midstream-bare-error", "INTERNAL", 500},
	} {
		t.Run(tt.trigger, func(t *testing.T) {
			r := post(t, s, "gemini-2.5-flash:generateContent", DefaultKey, `{"contents":[{"role":"user","parts":[{"text":"please `+tt.trigger+` now"}]}]}`)
			if r.status != tt.code || gjson.GetBytes(r.body, "error.status").Str != tt.status {
				t.Errorf("status %d body %s", r.status, r.body)
			}
		})
	}
	r := post(t, s, "gemini-2.5-flash:generateContent", DefaultKey, `{"contents":[{"role":"user","parts":[{"text":"fake:error:429"}]}]}`)
	if d := gjson.GetBytes(r.body, `error.details.#(@type%"*RetryInfo").retryDelay`).Str; d != "27s" {
		t.Errorf("retryDelay %q: %s", d, r.body)
	}
	r = post(t, s, "gemini-2.5-flash:generateContent", DefaultKey, `{"contents":[{"role":"user","parts":[{"text":"fake:badkey"}]}]}`)
	if reason := gjson.GetBytes(r.body, "error.details.0.reason").Str; reason != "API_KEY_INVALID" {
		t.Errorf("reason %q", reason)
	}
	r = post(t, s, "gemini-2.5-flash:streamGenerateContent?alt=sse", DefaultKey, `{"contents":[{"role":"user","parts":[{"text":"fake:midstream-error"}]}]}`)
	evs := events(t, r.body, "\r\n\r\n")
	if len(evs) != 3 || evs[2].Get("error.code").Int() != 500 {
		t.Errorf("midstream: %s", r.body)
	}
	r = post(t, s, "gemini-2.5-flash:streamGenerateContent?alt=sse", DefaultKey, `{"contents":[{"role":"user","parts":[{"text":"fake:midstream-bare-error"}]}]}`)
	blocks := strings.Split(strings.TrimSuffix(string(r.body), "\r\n\r\n"), "\r\n\r\n")
	if last := blocks[len(blocks)-1]; len(blocks) != 3 || !strings.HasPrefix(last, "{\r\n  \"error\": {\r\n") ||
		gjson.Get(last, "error.status").Str != "INTERNAL" {
		t.Errorf("midstream bare: %q", r.body)
	}
}

func TestHang(t *testing.T) {
	s := start(t, Options{})
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", s.URL+"/v1beta/models/gemini-2.5-flash:generateContent", strings.NewReader(`{"contents":[{"role":"user","parts":[{"text":"fake:hang"}]}]}`))
	req.Header.Set("x-goog-api-key", DefaultKey)
	if _, err := http.DefaultTransport.RoundTrip(req); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %v, want the client's deadline", err)
	}
}

func TestEmbeddings(t *testing.T) {
	s := start(t, Options{})
	r := post(t, s, "gemini-embedding-001:batchEmbedContents", DefaultKey, readFixture(t, "batch_embed_request.json"))
	embs := gjson.GetBytes(r.body, "embeddings").Array()
	if r.status != 200 || len(embs) != 2 || len(embs[0].Get("values").Array()) != 4 {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	again := post(t, s, "gemini-embedding-001:batchEmbedContents", DefaultKey, readFixture(t, "batch_embed_request.json"))
	if !bytes.Equal(r.body, again.body) {
		t.Error("embeddings are not deterministic")
	}
	one := post(t, s, "gemini-embedding-001:embedContent", DefaultKey, readFixture(t, "embed_request.json"))
	if n := len(gjson.GetBytes(one.body, "embedding.values").Array()); one.status != 200 || n != 4 {
		t.Errorf("embedContent: %d values: %s", n, one.body)
	}
	full := post(t, s, "text-embedding-004:batchEmbedContents", DefaultKey, `{"requests":[{"model":"models/text-embedding-004","content":{"parts":[{"text":"x"}]}}]}`)
	var sum float64
	for _, v := range gjson.GetBytes(full.body, "embeddings.0.values").Array() {
		sum += v.Num * v.Num
	}
	if n := len(gjson.GetBytes(full.body, "embeddings.0.values").Array()); n != 768 || math.Abs(sum-1) > 1e-3 {
		t.Errorf("full size: %d values, squared length %g", n, sum)
	}
}

func TestEmbeddingsStrict(t *testing.T) {
	s := start(t, Options{})
	many := strings.Repeat(`{"model":"models/gemini-embedding-001","content":{"parts":[{"text":"x"}]}},`, 101)
	for _, tt := range []struct {
		name, action, body string
		status             int
	}{
		{"model mismatch", "gemini-embedding-001:batchEmbedContents", `{"requests":[{"model":"models/text-embedding-004","content":{"parts":[{"text":"x"}]}}]}`, 400},
		{"model missing", "gemini-embedding-001:batchEmbedContents", `{"requests":[{"content":{"parts":[{"text":"x"}]}}]}`, 400},
		{"too many", "gemini-embedding-001:batchEmbedContents", `{"requests":[` + strings.TrimSuffix(many, ",") + `]}`, 400},
		{"too many dimensions", "text-embedding-004:batchEmbedContents", `{"requests":[{"model":"models/text-embedding-004","content":{"parts":[{"text":"x"}]},"outputDimensionality":769}]}`, 400},
		{"empty text", "gemini-embedding-001:embedContent", `{"content":{"parts":[{"text":""}]}}`, 400},
		{"title without task", "gemini-embedding-001:embedContent", `{"content":{"parts":[{"text":"a"}]},"title":"t"}`, 400},
		{"unknown field", "gemini-embedding-001:embedContent", `{"content":{"parts":[{"text":"a"}]},"dimensions":4}`, 400},
		{"chat model", "gemini-2.5-flash:embedContent", `{"content":{"parts":[{"text":"a"}]}}`, 404},
		{"trigger", "gemini-embedding-001:embedContent", `{"content":{"parts":[{"text":"fake:error:503"}]}}`, 503},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if r := post(t, s, tt.action, DefaultKey, tt.body); r.status != tt.status {
				t.Errorf("status %d, want %d: %s", r.status, tt.status, r.body)
			}
		})
	}
}

func TestSignatureAlphabet(t *testing.T) {
	sig := signature("gemini-3-flash-preview", "get_weather")
	if !regexp.MustCompile(`^[A-Za-z0-9+/]+=*$`).MatchString(sig) || !strings.Contains(sig, "+/+/") {
		t.Errorf("signature %q", sig)
	}
}
