package jsonschema

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

func TestExample(t *testing.T) {
	tests := []struct{ schema, want string }{
		{`{"type":"object","properties":{"city":{"type":"string"},"n":{"type":"integer","minimum":3}},"required":["city","n","x"]}`, `{"city":"Paris","n":3,"x":"Paris"}`},
		{`{"type":"array","items":{"enum":["a","b"]},"minItems":2}`, `["a","a"]`},
		{`{"$defs":{"d":{"type":"string","format":"date"}},"$ref":"#/$defs/d"}`, `"2026-01-01"`},
		{`{"anyOf":[{"type":"null"},{"type":"boolean"}]}`, `true`},
		{`{}`, `null`},
	}
	for _, tt := range tests {
		b, err := json.Marshal(Example(gjson.Parse(tt.schema)))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, string(b)); diff != "" {
			t.Errorf("Example(%s) mismatch (-want +got):\n%s", tt.schema, diff)
		}
	}
}
