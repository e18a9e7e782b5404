package fakegemini

import (
	"strings"

	"github.com/switchyard-gw/switchyard/internal/testing/fakeupstream"
)

// model is what the fake knows of a model.
type model struct {
	embedding bool
	dims      int // native size of an embedding model
}

// models are the google rows of the shared reference models.csv.
var models = map[string]model{
	"gemini-1.5-pro":            {},
	"gemini-1.5-flash":          {},
	"gemini-1.5-flash-8b":       {},
	"gemini-2.0-flash":          {},
	"gemini-2.0-flash-001":      {},
	"gemini-2.0-flash-lite":     {},
	"gemini-2.0-flash-lite-001": {},
	"gemini-2.5-pro":            {},
	"gemini-2.5-flash":          {},
	"gemini-2.5-flash-lite":     {},
	"gemini-3-flash-preview":    {},
	"gemini-3.1-pro-preview":    {},
	"gemini-3.1-flash-lite":     {},
	"gemini-3.5-flash":          {},
	"text-embedding-004":        {embedding: true, dims: 768},
	"gemini-embedding-001":      {embedding: true, dims: 3072},
}

type modelMode uint8

const (
	modeChat modelMode = iota
	modeEmbed
)

// modelKind reports whether id is known, and what it does. Any
// "gemini-fake-*" is known: a chat model, or an embedding model of 768
// dimensions when the name says "embedding".
func modelKind(id string) (modelMode, bool) {
	m, ok := lookup(id)
	if m.embedding {
		return modeEmbed, ok
	}
	return modeChat, ok
}

func lookup(id string) (model, bool) {
	if m, ok := models[id]; ok {
		return m, true
	}
	if strings.HasPrefix(id, "gemini-fake-") {
		if strings.Contains(id, "embedding") {
			return model{embedding: true, dims: 768}, true
		}
		return model{}, true
	}
	return model{}, false
}

func kindOf(method string) modelMode {
	if strings.HasPrefix(method, "embed") || strings.HasPrefix(method, "batchEmbed") {
		return modeEmbed
	}
	return modeChat
}

// needsSignature reports Gemini 3 and later: a function call turn must
// carry its thought signature.
func needsSignature(id string) bool {
	v, ok := strings.CutPrefix(id, "gemini-")
	major, n := 0, 0
	for n < len(v) && n < 4 && v[n] >= '0' && v[n] <= '9' {
		major = major*10 + int(v[n]-'0')
		n++
	}
	return ok && n > 0 && major >= 3
}

// thinks reports models that think (2.5 and later): they report
// thoughtsTokenCount.
func thinks(id string) bool {
	return needsSignature(id) || strings.HasPrefix(id, "gemini-2.5")
}

// triggers are the magic words (after "fake:") that make the fake answer
// in a special way; they are read from the last user text (the first input
// for embeddings).
var triggers = []string{
	"error:400", "error:403", "error:404", "error:429", "error:500", "error:503", "error:504",
	"badkey",               // 400 API_KEY_INVALID
	"midstream-error",      // streams: two events, then an error object; non-streams: 500
	"midstream-bare-error", // streams: two events, then a pretty-printed error without "data:"; non-streams: 500
	"hang",                 // send nothing until the client goes away
	"blocked",              // promptFeedback.blockReason, no candidates
	"parallel",             // two function calls instead of one
}

// findTrigger returns the first trigger in text, without "fake:", or "".
func findTrigger(text string) string { return fakeupstream.FindTrigger(text, triggers) }
