package jsonscan

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// benchBodies are request bodies of the sizes a gateway sees.
func benchBodies() []struct {
	name string
	body []byte
} {
	small := `{"model":"gpt-4o-mini","messages":[{"role":"system","content":"You are a helpful assistant."},` +
		`{"role":"user","content":"Say hello to the benchmark"}],"temperature":0.7,"max_tokens":256,"stream":true,` +
		`"stream_options":{"include_usage":true}}`
	// A conversation of about 100 KB: 40 turns of 2.5 KB, with escapes
	// and non-ASCII text, and a tool definition.
	var b strings.Builder
	b.WriteString(`{"model":"gpt-4o","messages":[`)
	for i := range 40 {
		role := []string{"user", "assistant"}[i%2]
		text := strings.Repeat(`Line with \"quotes\", a tab\t, some ünïcödé and numbers 12345.\n`, 40)
		fmt.Fprintf(&b, `{"role":%q,"content":"%s"},`, role, text)
	}
	b.WriteString(`{"role":"user","content":"Summarise."}],"tools":[{"type":"function","function":{"name":"get_weather",` +
		`"description":"Get the weather","parameters":{"type":"object","properties":{"location":{"type":"string"},` +
		`"unit":{"type":"string","enum":["c","f"]}},"required":["location"]}}}],"max_tokens":1024}`)
	// An embeddings batch: 256 inputs of about 200 bytes.
	var e strings.Builder
	e.WriteString(`{"model":"text-embedding-3-small","encoding_format":"float","input":[`)
	for i := range 256 {
		if i > 0 {
			e.WriteByte(',')
		}
		fmt.Fprintf(&e, "%q", fmt.Sprintf("Document %d: %s", i, strings.Repeat("lorem ipsum dolor sit amet ", 7)))
	}
	e.WriteString(`]}`)
	return []struct {
		name string
		body []byte
	}{
		{"small_chat", []byte(small)},
		{"100KB_chat", []byte(b.String())},
		{"embeddings_batch", []byte(e.String())},
	}
}

// BenchmarkCheck compares Check, new and reused, with json.Valid, the
// check it replaces.
func BenchmarkCheck(b *testing.B) {
	for _, c := range benchBodies() {
		if !json.Valid(c.body) || Check(c.body, Options{FoldTopLevel: true}) != nil {
			b.Fatalf("%s: not a valid body without duplicates", c.name)
		}
		b.Run(c.name+"/json.Valid", func(b *testing.B) {
			b.SetBytes(int64(len(c.body)))
			b.ReportAllocs()
			for b.Loop() {
				json.Valid(c.body)
			}
		})
		b.Run(c.name+"/jsonscan.Check", func(b *testing.B) {
			b.SetBytes(int64(len(c.body)))
			b.ReportAllocs()
			for b.Loop() {
				Check(c.body, Options{FoldTopLevel: true})
			}
		})
		b.Run(c.name+"/Scanner.Check", func(b *testing.B) { // reused, as the API does
			s := NewScanner(Options{FoldTopLevel: true})
			b.SetBytes(int64(len(c.body)))
			b.ReportAllocs()
			for b.Loop() {
				s.Check(c.body)
			}
		})
	}
}

// BenchmarkCheckManyKeys is the hostile case: one object of a million
// keys (32 MiB), all distinct.
func BenchmarkCheckManyKeys(b *testing.B) {
	var sb strings.Builder
	sb.WriteByte('{')
	for i := range 1_000_000 {
		fmt.Fprintf(&sb, `"key-%07d":"%015d",`, i, i)
	}
	sb.WriteString(`"end":0}`)
	body := []byte(sb.String())
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if err := Check(body, Options{FoldTopLevel: true}); err != nil {
			b.Fatal(err)
		}
	}
}

// streamChunk is a chat stream's chunk as OpenAI sends it.
const streamChunk = `{"id":"chatcmpl-fake00000000000000000002","object":"chat.completion.chunk","created":1795701376,` +
	`"model":"gpt-5.4-mini","service_tier":"default","system_fingerprint":"fp_fake",` +
	`"choices":[{"index":0,"delta":{"content":" hello"},"logprobs":null,"finish_reason":null}],"usage":null}`

// BenchmarkReaderMembers compares a Reader with what it replaces in the stream
// relay: gjson's check, then its walk of the top-level members.
func BenchmarkReaderMembers(b *testing.B) {
	b.Run("Reader", func(b *testing.B) {
		b.SetBytes(int64(len(streamChunk)))
		b.ReportAllocs()
		n := 0
		for b.Loop() {
			readMembers(streamChunk, func(k, v string) { n += len(v) })
		}
	})
	b.Run("gjson", func(b *testing.B) {
		b.SetBytes(int64(len(streamChunk)))
		b.ReportAllocs()
		n := 0
		for b.Loop() {
			gjson.Valid(streamChunk)
			gjson.Parse(streamChunk).ForEach(func(k, v gjson.Result) bool { n += len(v.Raw); return true })
		}
	})
}
