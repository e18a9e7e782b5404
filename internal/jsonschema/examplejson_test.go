package jsonschema

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestExampleJSON(t *testing.T) {
	for _, tt := range []struct{ name, schema, want string }{
		{"object", `{"type":"object","properties":{"n":{"type":"integer","minimum":3},"s":{"$ref":"#/$defs/S"}},"$defs":{"S":{"enum":["x","y"]}}}`, `{"n":3,"s":"x"}`},
		{"array", `{"type":"array","items":{"type":"boolean"},"minItems":2}`, `[true,true]`},
		{"anything", `{}`, `null`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, string(ExampleJSON([]byte(tt.schema)))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
