package gemini

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

func TestResponseJSONSchema(t *testing.T) {
	for _, tt := range []struct {
		name, in, want, err string
	}{
		{"kept as is", `{"type":"object","properties":{"a":{"type":["string","null"],"title":"A"}},"required":["a"],"additionalProperties":false}`,
			`{"type":"object","properties":{"a":{"type":["string","null"],"title":"A"}},"required":["a"],"additionalProperties":false}`, ""},
		{"dropped keywords", `{"$schema":"s","$comment":"c","type":"string","minLength":1,"maxLength":3,"pattern":"x","default":"d","examples":["e"],"not":{},"readOnly":true}`,
			`{"type":"string"}`, ""},
		{"$-keywords only beside $ref", `{"$ref":"#/$defs/X","description":"d","$id":"i","$defs":{"X":{"type":"integer","exclusiveMinimum":0}}}`,
			`{"$ref":"#/$defs/X","$id":"i","$defs":{"X":{"type":"integer"}}}`, ""},
		{"definitions move to $defs", `{"properties":{"a":{"$ref":"#/definitions/A"}},"definitions":{"A":{"type":"boolean"}}}`,
			`{"properties":{"a":{"$ref":"#/$defs/A"}},"$defs":{"A":{"type":"boolean"}}}`, ""},
		{"definitions beside $defs", `{"$defs":{"A":{"type":"string"}},"definitions":{"B":{"type":"number"}}}`,
			`{"$defs":{"A":{"type":"string"},"B":{"type":"number"}}}`, ""},
		{"definitions clash with $defs", `{"$defs":{"A":{}},"definitions":{"A":{}}}`, ``, `"A" is both in $defs and in definitions`},
		{"allOf merged", `{"allOf":[{"properties":{"a":{"type":"string"}},"required":["a"]},{"properties":{"b":{"type":"string"}},"required":["b"]}]}`,
			`{"properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["a","b"]}`, ""},
		{"const number", `{"const":2}`, `{"enum":[2]}`, ""},
		{"boolean sub-schemas", `{"items":true,"additionalProperties":false,"properties":{"no":false,"yes":true}}`,
			`{"items":true,"additionalProperties":false,"properties":{"yes":true}}`, ""},
		{"enum of booleans dropped", `{"type":"boolean","enum":[true]}`, `{"type":"boolean"}`, ""},
		{"bad type kept out", `{"type":3}`, `{}`, ""},
		{"anyOf not a list", `{"anyOf":{}}`, ``, "anyOf must be a list of schemas"},
		{"sub-schema not a schema", `{"properties":{"a":3}}`, ``, "expected a schema, got 3"},
		{"$ref not a string", `{"$ref":1}`, ``, "$ref must be a string"},
		{"root not an object", `true`, ``, "expected a JSON Schema object"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := responseJSONSchema(gjson.Parse(tt.in))
			checkSchemaResult(t, got, err, tt.want, tt.err)
		})
	}
}

// TestResponseJSONSchemaBounded: a huge or deep schema is refused, not
// walked without end.
func TestResponseJSONSchemaBounded(t *testing.T) {
	deep := strings.Repeat(`{"items":`, 100) + `{}` + strings.Repeat(`}`, 100)
	if _, err := responseJSONSchema(gjson.Parse(deep)); err == nil || !strings.Contains(err.Error(), "too large or too deep") {
		t.Errorf("error %v, want too deep", err)
	}
}

// checkSchemaResult compares a rewritten schema with want, or its error
// with wantErr when that is set.
func checkSchemaResult(t *testing.T, got []byte, err error, want, wantErr string) {
	t.Helper()
	if wantErr != "" {
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Fatalf("error %v, want %q", err, wantErr)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
