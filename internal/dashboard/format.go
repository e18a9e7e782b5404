package dashboard

import (
	"fmt"
	"html/template"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/switchyard-gw/switchyard/internal/usd"
)

// funcs are the templates' functions.
func (d *Dashboard) funcs() template.FuncMap {
	return template.FuncMap{
		"static": d.staticURL,
		"usd":    func(a usd.Amount) string { return a.Dollars() },
		"num":    num,
		"when":   when,
		"day":    func(t time.Time) string { return t.UTC().Format(time.DateOnly) },
		"field":  field,
		"sunset": sunset,
		"secret": func(id, label, value string) secretField { return secretField{id, label, value} },
		"rateHint": func(def int64) string {
			if def <= 0 {
				return "Default: unlimited."
			}
			return "Default: " + groupDigits(def) + "."
		},
	}
}

// num formats an integer of any size for templates, as groupDigits.
func num(v any) (string, error) {
	switch n := v.(type) {
	case int:
		return groupDigits(int64(n)), nil
	case int64:
		return groupDigits(n), nil
	}
	return "", fmt.Errorf("num: %T is not an integer", v)
}

// groupDigits formats n with commas between groups of three digits:
// 1234567 → "1,234,567".
func groupDigits(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// when formats a time in UTC to the minute; "never" for the zero time.
func when(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

// firstOfMonth returns 00:00 UTC on the first day of t's month (UTC).
func firstOfMonth(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// dayOf returns 00:00 UTC of t's day (UTC).
func dayOf(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

// secretField is a secret shown once, for the "secret" template.
type secretField struct{ ID, Label, Value string }

// formField is a labelled input for the "input" template.
type formField struct {
	ID, Label, Type, Value, Hint, Error, Autocomplete, Inputmode string
	Required                                                     bool
}

// Describedby returns the IDs of the field's hint and error.
func (f formField) Describedby() string {
	var ids []string
	if f.Hint != "" {
		ids = append(ids, f.ID+"-hint")
	}
	if f.Error != "" {
		ids = append(ids, f.ID+"-error")
	}
	return strings.Join(ids, " ")
}

// field builds a formField from name/value pairs, for templates:
// field "id" "email" "label" "Email" "type" "email" "required" "true".
func field(kv ...string) (formField, error) {
	if len(kv)%2 != 0 {
		return formField{}, fmt.Errorf("field: odd number of arguments %q", kv)
	}
	f := formField{Type: "text"}
	for i := 0; i < len(kv); i += 2 {
		k, v := kv[i], kv[i+1]
		switch k {
		case "id":
			f.ID = v
		case "label":
			f.Label = v
		case "type":
			f.Type = v
		case "value":
			f.Value = v
		case "hint":
			f.Hint = v
		case "error":
			f.Error = v
		case "autocomplete":
			f.Autocomplete = v
		case "inputmode":
			f.Inputmode = v
		case "required":
			f.Required = v == "true"
		default:
			return formField{}, fmt.Errorf("field: unknown attribute %q", k)
		}
	}
	if f.ID == "" || f.Label == "" {
		return formField{}, fmt.Errorf("field: id and label are required, got %q", kv)
	}
	return f, nil
}

// sentence turns an error worded for the CLI ("use at most 100
// characters") into a form's message ("Use at most 100 characters.").
func sentence(err error) string {
	s := err.Error()
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:] + "."
}
