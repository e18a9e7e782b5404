package fakegemini

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

// thinkingBody is a valid request with the given thinkingConfig members.
func thinkingBody(members string) string {
	return `{"contents":[{"role":"user","parts":[{"text":"a"}]}],"generationConfig":{"thinkingConfig":{` + members + `}}}`
}

// jsonSchemaBody is a request for JSON fitting schema.
func jsonSchemaBody(schema string) string {
	return `{"contents":[{"role":"user","parts":[{"text":"a"}]}],"generationConfig":{"responseMimeType":"application/json","responseJsonSchema":` + schema + `}}`
}

// TestStrictThinking: thinkingConfig and responseJsonSchema as Gemini
// checks them.
func TestStrictThinking(t *testing.T) {
	checkStrict(t, []strictCase{
		{"budget and level", "gemini-3-flash-preview", DefaultKey, thinkingBody(`"thinkingBudget":1024,"thinkingLevel":"low"`), 400, "only set one of thinking budget and thinking level"},
		{"budget under pro's range", "gemini-2.5-pro", DefaultKey, thinkingBody(`"thinkingBudget":0`), 400, "range [128, 32768]"},
		{"budget over flash's range", "gemini-2.5-flash", DefaultKey, thinkingBody(`"thinkingBudget":32768`), 400, "range [0, 24576]"},
		{"budget under flash-lite's range", "gemini-2.5-flash-lite", DefaultKey, thinkingBody(`"thinkingBudget":256`), 400, "range [512, 24576]"},
		{"budget not an integer", "gemini-2.5-flash", DefaultKey, thinkingBody(`"thinkingBudget":"1024"`), 400, "thinking_budget"},
		{"level on 2.5", "gemini-2.5-flash", DefaultKey, thinkingBody(`"thinkingLevel":"low"`), 400, "Thinking level is not supported"},
		{"minimal on pro", "gemini-3.1-pro-preview", DefaultKey, thinkingBody(`"thinkingLevel":"minimal"`), 400, "thinking_level"},
		{"unknown level", "gemini-3-flash-preview", DefaultKey, thinkingBody(`"thinkingLevel":"max"`), 400, "thinking_level"},
		{"thinking on 2.0", "gemini-2.0-flash", DefaultKey, thinkingBody(`"includeThoughts":true`), 400, "Thinking is not supported"},
		{"includeThoughts not a boolean", "gemini-2.5-flash", DefaultKey, thinkingBody(`"includeThoughts":"yes"`), 400, "include_thoughts"},
		{"unknown thinking field", "gemini-2.5-flash", DefaultKey, thinkingBody(`"budget":1`), 400, `Unknown name "budget"`},
		{"JSON Schema keyword Gemini lacks", "gemini-2.5-flash", DefaultKey, jsonSchemaBody(`{"type":"object","properties":{"a":{"type":"string","minLength":1}}}`), 400, `unsupported JSON Schema keyword "minLength"`},
		{"keyword beside $ref", "gemini-2.5-flash", DefaultKey, jsonSchemaBody(`{"$defs":{"A":{"type":"string"}},"properties":{"a":{"$ref":"#/$defs/A","description":"d"}}}`), 400, `a schema with $ref may not have "description"`},
		{"boolean enum", "gemini-2.5-flash", DefaultKey, jsonSchemaBody(`{"enum":[true]}`), 400, "enum values must be strings or numbers"},
	})
}

// TestThoughts: with includeThoughts the whole answer starts with a
// thought part and reports thoughtsTokenCount; a budget of 0 stops the
// thinking, and with it the thoughts.
func TestThoughts(t *testing.T) {
	s := start(t, Options{})
	for _, tt := range []struct {
		name, model, config string
		want                map[string]string
	}{
		{"shown", "gemini-2.5-flash", `"includeThoughts":true,"thinkingBudget":512`, map[string]string{
			"candidates.0.content.parts.0.thought": "true",
			"candidates.0.content.parts.0.text":    "**Reading the request**\nThe user wrote: a",
			"candidates.0.content.parts.1.text":    "You said: a and that is all I have to say about",
			"candidates.0.content.parts.1.thought": "",
			"usageMetadata.thoughtsTokenCount":     "7",
			"usageMetadata.totalTokenCount":        "20",
		}},
		{"hidden", "gemini-3-flash-preview", `"thinkingLevel":"minimal"`, map[string]string{
			"candidates.0.content.parts.0.text": "You said: a and that is all I have to say about",
			"candidates.0.content.parts.#":      "1",
			"usageMetadata.thoughtsTokenCount":  "7",
		}},
		{"off", "gemini-2.5-flash", `"includeThoughts":true,"thinkingBudget":0`, map[string]string{
			"candidates.0.content.parts.0.text": "You said: a and that is all I have to say about",
			"candidates.0.content.parts.#":      "1",
			"usageMetadata.thoughtsTokenCount":  "",
		}},
		{"dynamic on pro", "gemini-2.5-pro", `"includeThoughts":true,"thinkingBudget":-1`, map[string]string{
			"candidates.0.content.parts.0.thought": "true",
			"candidates.0.content.parts.#":         "2",
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := post(t, s, tt.model+":generateContent", DefaultKey, thinkingBody(tt.config))
			got := gjson.ParseBytes(r.body)
			for path, w := range tt.want {
				if g := got.Get(path).String(); g != w {
					t.Errorf("%s = %q, want %q (%s)", path, g, w, r.body)
				}
			}
		})
	}
}

// TestJSONAnswers: answers to a response schema (JSON Schema, or
// Gemini's OpenAPI Schema with upper-case types) fit it.
func TestJSONAnswers(t *testing.T) {
	s := start(t, Options{})
	for _, tt := range []struct{ name, config, want string }{
		{"json schema", `"responseMimeType":"application/json","responseJsonSchema":{"type":"object","properties":{"n":{"type":"integer","minimum":2},"k":{"$ref":"#/$defs/K"}},"$defs":{"K":{"enum":["x"]}},"required":["n","k"]}`,
			`{"k":"x","n":2}`},
		{"openapi schema", `"responseMimeType":"application/json","responseSchema":{"type":"OBJECT","properties":{"ok":{"type":"BOOLEAN"},"list":{"type":"ARRAY","items":{"type":"NUMBER"}}}}`,
			`{"list":[1],"ok":true}`},
		{"no schema", `"responseMimeType":"application/json"`, `{"answer":"You said: a and that is all I have to say about"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := post(t, s, "gemini-2.5-flash:generateContent", DefaultKey, `{"contents":[{"role":"user","parts":[{"text":"a"}]}],"generationConfig":{`+tt.config+`}}`)
			if diff := cmp.Diff(tt.want, gjson.GetBytes(r.body, "candidates.0.content.parts.0.text").Str); diff != "" {
				t.Errorf("answer (-want +got):\n%s\n%s", diff, r.body)
			}
		})
	}
}
