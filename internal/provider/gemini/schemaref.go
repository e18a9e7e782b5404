package gemini

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// Local $refs (#/$defs/…, #/definitions/…, any JSON pointer into the
// parameters) are inlined; Gemini's Schema has no references.

// ref inlines the local reference ref.
func (r *reducer) ref(ref string, depth int) (*object, error) {
	if slices.Contains(r.refs, ref) {
		return nil, fmt.Errorf("%w %q", errRecursive, ref)
	}
	target, err := r.resolve(ref)
	if err != nil {
		return nil, err
	}
	r.refs = append(r.refs, ref)
	defer func() { r.refs = r.refs[:len(r.refs)-1] }()
	return r.reduce(target, depth+1)
}

// resolve follows a local JSON pointer such as "#/$defs/Address".
func (r *reducer) resolve(ref string) (gjson.Result, error) {
	ptr, ok := strings.CutPrefix(ref, "#")
	if !ok || (ptr != "" && !strings.HasPrefix(ptr, "/")) {
		return gjson.Result{}, fmt.Errorf("$ref %q: only local references (#/…) can be inlined", ref)
	}
	cur := r.root
	for tok := range strings.SplitSeq(strings.TrimPrefix(ptr, "/"), "/") {
		if ptr == "" {
			break
		}
		if u, err := url.PathUnescape(tok); err == nil {
			tok = u
		}
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		next, found := child(cur, tok)
		if !found {
			return gjson.Result{}, fmt.Errorf("$ref %q: no such definition", ref)
		}
		cur = next
	}
	return cur, nil
}

// child returns member key of an object, or element key of an array.
func child(v gjson.Result, key string) (gjson.Result, bool) {
	if v.IsArray() {
		i, err := strconv.Atoi(key)
		arr := v.Array()
		if err != nil || i < 0 || i >= len(arr) {
			return gjson.Result{}, false
		}
		return arr[i], true
	}
	_, m := members(v)
	c, ok := m[key]
	return c, ok
}
