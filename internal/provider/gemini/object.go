package gemini

import (
	"encoding/json"

	"github.com/tidwall/gjson"
)

// object is a JSON object that keeps its keys in insertion order, so a
// reduced schema lists properties as the client did. Values are
// json.RawMessage, *object or []any of those.
type object struct {
	keys []string
	vals map[string]any
}

func (o *object) has(k string) bool {
	_, ok := o.vals[k]
	return ok
}

// set adds k at the end, or replaces its value in place.
func (o *object) set(k string, v any) {
	if o.vals == nil {
		o.vals = map[string]any{}
	}
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *object) del(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	for i, key := range o.keys {
		if key == k {
			o.keys = append(o.keys[:i], o.keys[i+1:]...)
			return
		}
	}
}

func (o *object) len() int { return len(o.keys) }

// MarshalJSON writes the members in order.
func (o *object) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, k := range o.keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = gjson.AppendJSONString(b, k)
		b = append(b, ':')
		v, err := json.Marshal(o.vals[k])
		if err != nil {
			return nil, err
		}
		b = append(b, v...)
	}
	return append(b, '}'), nil
}

// members returns the keys of a JSON object and their values, in order;
// gjson paths cannot address keys such as "$ref" safely.
func members(v gjson.Result) ([]string, map[string]gjson.Result) {
	var keys []string
	m := map[string]gjson.Result{}
	v.ForEach(func(k, val gjson.Result) bool {
		if _, dup := m[k.Str]; !dup {
			keys = append(keys, k.Str)
		}
		m[k.Str] = val
		return true
	})
	return keys, m
}

// quoted is s as a JSON string.
func quoted(s string) json.RawMessage { return gjson.AppendJSONString(nil, s) }
