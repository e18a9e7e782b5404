// Package tokens counts tokens offline with OpenAI's BPE encodings, for
// upstreams that do not report usage.
package tokens

import (
	"strings"
	"sync"

	"github.com/pkoukk/tiktoken-go"
	loader "github.com/pkoukk/tiktoken-go-loader"
)

var (
	once sync.Once
	o200 *tiktoken.Tiktoken
	cl   *tiktoken.Tiktoken
)

// load reads the embedded BPE ranks once (no network: the loader ships
// them in the binary).
func load() {
	tiktoken.SetBpeLoader(loader.NewOfflineLoader())
	o200, _ = tiktoken.GetEncoding("o200k_base")
	cl, _ = tiktoken.GetEncoding("cl100k_base")
}

// encoding picks o200k_base for the GPT-4o generation and later, else
// cl100k_base (also the approximation used for non-OpenAI models).
func encoding(model string) *tiktoken.Tiktoken {
	once.Do(load)
	for _, p := range []string{"gpt-4o", "gpt-4.1", "gpt-5", "o1", "o3", "o4", "chatgpt-4o"} {
		if strings.HasPrefix(model, p) && o200 != nil {
			return o200
		}
	}
	return cl
}

// Count returns the number of tokens of text for model.
func Count(model, text string) int {
	if text == "" {
		return 0
	}
	enc := encoding(model)
	if enc == nil {
		return (len(text) + 3) / 4
	}
	return len(enc.EncodeOrdinary(text))
}

// Decode turns token IDs back into text, for legacy token prompts sent to
// chat models.
func Decode(model string, ids []int) string {
	enc := encoding(model)
	if enc == nil {
		return ""
	}
	return enc.Decode(ids)
}
