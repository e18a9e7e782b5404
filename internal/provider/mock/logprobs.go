package mock

import "github.com/tidwall/gjson"

// maxTop is the most top_logprobs OpenAI accepts.
const maxTop = 20

// wantLogprobs reports whether the request asks for logprobs, and how
// many top alternatives (0 to 20) each token carries.
func wantLogprobs(body []byte) (top int, ok bool) {
	if !gjson.GetBytes(body, "logprobs").Bool() {
		return 0, false
	}
	return min(max(0, int(gjson.GetBytes(body, "top_logprobs").Int())), maxTop), true
}

// logprobs is a choice's logprobs object: null unless asked for, and
// content null for a function call.
func logprobs(body []byte, rep *reply) any {
	top, ok := wantLogprobs(body)
	if !ok {
		return nil
	}
	if rep.calls {
		return map[string]any{"content": nil, "refusal": nil}
	}
	entries := make([]any, len(rep.tokens))
	for i, tok := range rep.tokens {
		entries[i] = tokenLogprob(tok, top)
	}
	return map[string]any{"content": entries, "refusal": nil}
}

// tokenLogprob is the logprobs entry of one token: a deterministic
// logprob, and top alternatives starting with the token itself.
func tokenLogprob(tok string, top int) map[string]any {
	alternatives := [maxTop]string{" the", " a", ",", ".", " and", " of", " to", " in", " is", " it",
		" that", " for", " on", " with", " as", " was", " at", " by", " an", " be"}
	lp := -float64(len(tok)%5+1) / 100
	alts := make([]any, top)
	for i := range alts {
		t, l := tok, lp
		if i > 0 {
			t, l = alternatives[i-1], lp-float64(i)
		}
		alts[i] = map[string]any{"token": t, "logprob": l, "bytes": tokenBytes(t)}
	}
	return map[string]any{"token": tok, "logprob": lp, "bytes": tokenBytes(tok), "top_logprobs": alts}
}

// tokenBytes is a token's UTF-8 bytes as OpenAI lists them.
func tokenBytes(tok string) []int {
	out := make([]int, len(tok))
	for i := range len(tok) {
		out[i] = int(tok[i])
	}
	return out
}
