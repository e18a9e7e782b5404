// Package tokens counts tokens offline with OpenAI's BPE encodings, for
// upstreams that do not report usage.
package tokens

import (
	"strings"
	"sync"
	"unicode/utf8"

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

// MaxExact is the most text, in bytes, one count runs through the
// tokenizer. Encoding costs about 40 bytes of memory and a few hundred
// nanoseconds per byte of text, so a longer text is sampled and its count
// extrapolated: a hostile 30 MB prompt costs what 128 KiB costs (issue 13).
const MaxExact = 128 << 10

// samples is how many evenly spaced windows of a long text are counted:
// spread over the whole text, so padding at one end cannot skew the
// extrapolation.
const samples = 16

// Count returns the number of tokens of text for model: exact up to
// MaxExact bytes, extrapolated past it from evenly spaced samples.
func Count(model, text string) int {
	if text == "" {
		return 0
	}
	enc := encoding(model)
	if enc == nil {
		return (len(text) + 3) / 4
	}
	if len(text) <= MaxExact {
		return count(enc, text)
	}
	size := MaxExact / samples
	step := (len(text) - size) / (samples - 1)
	counted, n := 0, 0
	for i := range samples {
		s := window(text, i*step, size)
		counted += len(s)
		n += count(enc, s)
	}
	return extrapolate(n, counted, len(text))
}

// piece bounds what one call of the encoder sees. Its merging is
// quadratic in the length of a run without word breaks (8 KiB of spaces
// or of one letter take 50 ms, 128 KiB take 20 s), so text is encoded in
// pieces cut before a space where one is near.
const piece = 512

// count encodes text piece by piece.
func count(enc *tiktoken.Tiktoken, text string) int {
	n := 0
	for text != "" {
		s := window(text, 0, piece)
		if len(s) < len(text) {
			if i := strings.LastIndexAny(s[len(s)/2:], " \n"); i > 0 {
				s = s[:len(s)/2+i]
			}
		}
		if s == "" { // a lone invalid byte
			s = text[:1]
		}
		n += len(enc.EncodeOrdinary(s))
		text = text[len(s):]
	}
	return n
}

// window returns about size bytes of text from off, both ends moved to
// rune boundaries.
func window(text string, off, size int) string {
	end := min(off+size, len(text))
	for off > 0 && off < len(text) && !utf8.RuneStart(text[off]) {
		off++
	}
	for end < len(text) && end > off && !utf8.RuneStart(text[end]) {
		end--
	}
	return text[off:end]
}

// extrapolate scales n tokens counted in counted bytes to total bytes,
// rounding up.
func extrapolate(n, counted, total int) int {
	if counted <= 0 || total <= counted {
		return n
	}
	return int((int64(n)*int64(total) + int64(counted) - 1) / int64(counted))
}

// Text collects text to count as it arrives (a streamed answer), keeping
// at most MaxExact bytes: past them only the length is kept and the count
// is extrapolated from the kept part, so memory stays bounded whatever the
// length. The zero Text is empty and ready.
type Text struct {
	b     strings.Builder
	total int // bytes added in all
}

// textRoom is the room a Text takes at its first text: a short answer's
// deltas fit without the builder doubling from 8 bytes up.
const textRoom = 256

// Add appends s.
func (t *Text) Add(s string) {
	t.total += len(s)
	if s == "" {
		return
	}
	if t.b.Cap() == 0 {
		t.b.Grow(textRoom)
	}
	if room := MaxExact - t.b.Len(); room > 0 {
		t.b.WriteString(window(s, 0, room))
	}
}

// Count returns the tokens of the text added so far for model.
func (t *Text) Count(model string) int {
	kept := t.b.String()
	return extrapolate(Count(model, kept), len(kept), t.total)
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
