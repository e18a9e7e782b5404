package gemini

import (
	"encoding/base64"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/provider"
)

func TestReduceSchema(t *testing.T) {
	for _, tt := range []struct {
		name, in, want string
		err            string
	}{
		{"no properties", `{"type":"object","properties":{}}`, ``, ""},
		{"drops keywords", `{"type":"object","$schema":"x","$id":"y","$comment":"z","additionalProperties":false,"properties":{"a":{"type":"string","default":"q","examples":["q"],"readOnly":true}}}`,
			`{"type":"object","properties":{"a":{"type":"string"}}}`, ""},
		{"nullable type list", `{"properties":{"a":{"type":["integer","null"]}}}`,
			`{"properties":{"a":{"nullable":true,"type":"integer"}},"type":"object"}`, ""},
		{"anyOf with null", `{"properties":{"a":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/X"}],"description":"d"}},"$defs":{"X":{"type":"string","enum":["x","y"]}}}`,
			`{"properties":{"a":{"description":"d","nullable":true,"type":"string","enum":["x","y"]}},"type":"object"}`, ""},
		{"anyOf of anything", `{"properties":{"a":{"anyOf":[{"type":"string"},{}]}}}`, `{"properties":{"a":{}},"type":"object"}`, ""},
		{"root ref", `{"properties":{"self":{"$ref":"#"}}}`, ``, "recursive $ref \"#\""},
		{"remote ref", `{"properties":{"a":{"$ref":"https://example.com/s.json"}}}`, ``, "only local references"},
		{"missing ref", `{"properties":{"a":{"$ref":"#/$defs/Nope"}}}`, ``, "no such definition"},
		{"pointer escapes", `{"properties":{"a":{"$ref":"#/$defs/a~1b"}},"$defs":{"a/b":{"type":"boolean"}}}`,
			`{"properties":{"a":{"type":"boolean"}},"type":"object"}`, ""},
		{"const and mixed enum", `{"properties":{"a":{"const":"k"},"b":{"type":"integer","enum":[1,2]},"c":{"enum":["x",null]}}}`,
			`{"properties":{"a":{"enum":["k"],"type":"string"},"b":{"type":"integer"},"c":{"nullable":true,"enum":["x"],"type":"string"}},"type":"object"}`, ""},
		{"formats", `{"properties":{"a":{"type":"string","format":"email"},"b":{"type":"string","format":"date-time"}}}`,
			`{"properties":{"a":{"type":"string"},"b":{"type":"string","format":"date-time"}},"type":"object"}`, ""},
		{"required filtered", `{"properties":{"a":{"type":"string"}},"required":["a","b","a"]}`,
			`{"properties":{"a":{"type":"string"}},"required":["a"],"type":"object"}`, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := reduceSchema(gjson.Parse(tt.in))
			checkSchemaResult(t, got, err, tt.want, tt.err)
		})
	}
}

// TestReduceSchemaBlowUp: definitions that refer to each other twice
// over would expand exponentially; the reducer gives up instead.
func TestReduceSchemaBlowUp(t *testing.T) {
	defs := []string{`"D0":{"type":"string"}`}
	for i := 1; i < 30; i++ {
		defs = append(defs, `"D`+itoa(i)+`":{"type":"object","properties":{"a":{"$ref":"#/$defs/D`+itoa(i-1)+`"},"b":{"$ref":"#/$defs/D`+itoa(i-1)+`"}}}`)
	}
	in := `{"type":"object","properties":{"x":{"$ref":"#/$defs/D29"}},"$defs":{` + strings.Join(defs, ",") + `}}`
	if _, err := reduceSchema(gjson.Parse(in)); err == nil || !strings.Contains(err.Error(), "too large") {
		t.Errorf("error %v, want too large", err)
	}
}

func itoa(i int) string { return string(appendInt(nil, i)) }

func TestCallID(t *testing.T) {
	for _, tt := range []struct {
		name, sig, wantID, back string
	}{
		{"none", "", "call_ABCDEFGHIJKL", ""},
		{"standard", "+/+/ZmFrZXNpZw==", "call_ABCDEFGHIJKL_ts_-_-_ZmFrZXNpZw", "+/+/ZmFrZXNpZw=="},
		{"url-safe unpadded", "-_-_ZmFrZXNpZw", "call_ABCDEFGHIJKL_ts_-_-_ZmFrZXNpZw", "+/+/ZmFrZXNpZw=="},
		{"not base64", "not base64!", "call_ABCDEFGHIJKL", ""},
		{"non-canonical bits", "QR==", "call_ABCDEFGHIJKL", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			id := callID("ABCDEFGHIJKLMNOP", tt.sig)
			if diff := cmp.Diff(tt.wantID, id); diff != "" {
				t.Errorf("id (-want +got):\n%s", diff)
			}
			if got := signatureOf(id); got != tt.back {
				t.Errorf("signatureOf = %q, want %q", got, tt.back)
			}
			for _, c := range id {
				if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
					t.Fatalf("id %q holds %q", id, c)
				}
			}
		})
	}
	for _, id := range []string{"call_Vh3pX2LqTz8mN1cR4sYb7KdE", "toolu_01_ts_abc", "call_x_ts_", "call_x_ts_!!", "call_abc_ts_eHl6",
		"call_ABCDEFGHIJK1_ts_eHl6", "call_ABCDEFGHIJKL_ts_", "call_ABCDEFGHIJKL_tx_eHl6", ""} {
		if got := signatureOf(id); got != "" {
			t.Errorf("signatureOf(%q) = %q, want none", id, got)
		}
	}
}

// TestCallIDSize documents the cost: 21 characters plus 4/3 of the
// signature's bytes.
func TestCallIDSize(t *testing.T) {
	sig := base64.StdEncoding.EncodeToString(make([]byte, 300))
	if n := len(callID("ABCDEFGHIJKL", sig)); n != 21+400 {
		t.Errorf("len = %d, want %d", n, 21+400)
	}
}

func TestNeedsSignature(t *testing.T) {
	for model, want := range map[string]bool{
		"gemini-3-flash-preview": true, "gemini-3.1-pro-preview": true, "models/gemini-3.5-flash": true, "gemini-10-ultra": true,
		"gemini-2.5-flash": false, "gemini-1.5-pro": false, "gemini-fake-chat": false, "text-embedding-004": false,
	} {
		if got := needsSignature(model); got != want {
			t.Errorf("needsSignature(%q) = %v", model, got)
		}
	}
}

// TestStatusError classifies the shared Gemini error fixtures.
func TestStatusError(t *testing.T) {
	h := http.Header{"Retry-After": {"3"}}
	for _, tt := range []struct {
		file       string
		kind       provider.Kind
		code       string
		retryAfter time.Duration
	}{
		{"error_400_api_key_invalid.json", provider.KindAuth, "api_key_invalid", 3 * time.Second},
		{"error_400_function_turn_order.json", provider.KindBadRequest, "", 3 * time.Second},
		{"error_400_invalid_argument.json", provider.KindBadRequest, "", 3 * time.Second},
		{"error_400_missing_thought_signature.json", provider.KindBadRequest, "", 3 * time.Second},
		{"error_403_permission_denied.json", provider.KindAuth, "", 3 * time.Second},
		{"error_404_model_not_found.json", provider.KindNotFound, "", 3 * time.Second},
		{"error_429_resource_exhausted.json", provider.KindRateLimit, "", 27 * time.Second},
		{"error_500_internal.json", provider.KindUnavailable, "", 3 * time.Second},
		{"error_503_unavailable.json", provider.KindOverloaded, "", 3 * time.Second},
	} {
		t.Run(tt.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata/error", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			status := int(gjson.GetBytes(b, "error.code").Int())
			e := statusError("g", status, h, b)
			if e.Kind != tt.kind || e.Code != tt.code || e.RetryAfter != tt.retryAfter || e.Status != status {
				t.Errorf("kind %d code %q retry %v status %d, want kind %d code %q retry %v", e.Kind, e.Code, e.RetryAfter, e.Status, tt.kind, tt.code, tt.retryAfter)
			}
			if want := gjson.GetBytes(b, "error.message").Str; e.Message != want || e.Type != gjson.GetBytes(b, "error.status").Str {
				t.Errorf("message %q type %q", e.Message, e.Type)
			}
		})
	}
	for _, tt := range []struct {
		status int
		body   string
		kind   provider.Kind
		code   string
	}{
		{504, `{"error":{"code":504,"status":"DEADLINE_EXCEEDED","message":"late"}}`, provider.KindTimeout, ""},
		{400, `{"error":{"code":400,"status":"FAILED_PRECONDITION","message":"User location is not supported for the API use."}}`, provider.KindUnavailable, ""},
		{400, `{"error":{"code":400,"status":"INVALID_ARGUMENT","message":"The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."}}`, provider.KindBadRequest, "context_length_exceeded"},
		{502, `<html>bad gateway</html>`, provider.KindUnavailable, ""},
	} {
		e := statusError("g", tt.status, nil, []byte(tt.body))
		if e.Kind != tt.kind || e.Code != tt.code || e.Message == "" {
			t.Errorf("%s: kind %d code %q message %q, want kind %d code %q", tt.body, e.Kind, e.Code, e.Message, tt.kind, tt.code)
		}
	}
}

func TestFinishReason(t *testing.T) {
	for _, tt := range []struct {
		in           string
		call, legacy bool
		want         string
	}{
		{"STOP", false, false, "stop"},
		{"STOP", true, false, "tool_calls"},
		{"STOP", true, true, "function_call"},
		{"MAX_TOKENS", true, false, "length"},
		{"SAFETY", false, false, "content_filter"},
		{"RECITATION", false, false, "content_filter"},
		{"BLOCKLIST", false, false, "content_filter"},
		{"PROHIBITED_CONTENT", false, false, "content_filter"},
		{"SPII", false, false, "content_filter"},
		{"MALFORMED_FUNCTION_CALL", false, false, "stop"},
		{"OTHER", false, false, "stop"},
		{"SOMETHING_NEW", false, false, "stop"},
	} {
		if got := finishReason(tt.in, tt.call, tt.legacy); got != tt.want {
			t.Errorf("finishReason(%s, %v, %v) = %q, want %q", tt.in, tt.call, tt.legacy, got, tt.want)
		}
	}
}

func TestOwned(t *testing.T) {
	err := owned("g", refuse(codeInvalid, "x", "bad"))
	var pe *provider.Error
	if !errors.As(err, &pe) || pe.Provider != "g" {
		t.Errorf("owned: %v", err)
	}
}
