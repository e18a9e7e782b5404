package provider

import (
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// AnswerModel is the model an answer names when the upstream's answer
// names answered: answered itself when it is the ID the client asked for
// or a more precise snapshot of it (that ID, a dash, then a date or
// version made of digits and dashes: "gpt-4o-2024-08-06" for "gpt-4o",
// "claude-sonnet-4-5-20250929" for "claude-sonnet-4-5"); else r.Model.
func (r *Request) AnswerModel(answered string) string {
	rest, ok := strings.CutPrefix(answered, r.Model)
	if !ok {
		return r.Model
	}
	if rest == "" {
		return answered
	}
	if len(rest) < 2 || rest[0] != '-' || rest[1] < '0' || rest[1] > '9' {
		return r.Model
	}
	for i := 2; i < len(rest); i++ {
		if c := rest[i]; c != '-' && (c < '0' || c > '9') {
			return r.Model
		}
	}
	return answered
}

// NameModel returns b with the model at path (whose value in b is
// answered) set to the one the answer names (AnswerModel): b itself,
// unchanged, when it already names it or has no model there.
func (r *Request) NameModel(b []byte, path string, answered gjson.Result) []byte {
	if answered.Type != gjson.String {
		return b
	}
	want := r.AnswerModel(answered.Str)
	if want == answered.Str {
		return b
	}
	out, err := sjson.SetBytes(b, path, want)
	if err != nil {
		return b
	}
	return out
}
