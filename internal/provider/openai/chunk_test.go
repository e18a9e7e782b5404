package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/sse"
	"github.com/switchyard-gw/switchyard/internal/tokens"
)

// chunkSeeds are chunks whose reading has a corner: escapes in keys and
// values, duplicates, values of odd types, choices that are not an array.
var chunkSeeds = []string{
	`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":[{"index":0,"delta":{"content":"Hi \"you\"\n\u00e9"},"finish_reason":null}],"usage":null}`,
	`{"id":"c\u0031","created":1.7e9,"model":1,"object":null,"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\":1}"}}]}}]}`,
	`{"choices":[{"delta":{"function_call":{"name":"f","arguments":"{}"},"content":"x","content":"y"}},{"text":"legacy"},{"text":"a","text":"b"}]}`,
	`{"choices":[{"del\u0074a":{"content":"escaped key"}},{"delta":{"con\u0074ent":"escaped inner key"}},{"delta":null,"text":"t"},5,"s",[]]}`,
	`{"choices":{"a":{"delta":{"content":"an object of choices"}},"b":{"text":"legacy"}}}`,
	`{"choices":"not a list","created":"123","us\u0061ge":{"prompt_tokens":1},"x_groq":{"usage":{"completion_tokens":2}}}`,
	`{"choices":[{"delta":{"content":"one"},"delta":{"content":"two three four five"}}],"created":-0,"created":99999999999999999999}`,
	`{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}}`, `{"choices":[ ]}`,
	`{"choices":[{"delta":{"content":"first list"}}],"choices":[{"delta":{"content":"the last list counts"}}]}`,
	`[{"choices":[{"delta":{"content":"an array"}}]}]`, `"text"`, `{}`,
	`{"choices":[{"text":"1"},{"text":"2"},{"text":"3"},{"delta":{"content":"4","tool_calls":[{"function":{"arguments":"5"}}]}},` +
		`{"text":"6"},{"text":"7"},{"text":"8"},{"text":"9"},{"text":"10"}]}`, // more texts than chunkMembers' room
}

// TestChunkReading reads chunks as the relay read them with gjson before
// reading them in one pass: the same members, strings, numbers, and texts
// to count, in order.
func TestChunkReading(t *testing.T) {
	for _, c := range chunkSeeds {
		checkChunkReading(t, c)
	}
}

// FuzzChunkReading: any valid chunk is read as gjson read it.
func FuzzChunkReading(f *testing.F) {
	for _, c := range chunkSeeds {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, chunk string) {
		if json.Valid([]byte(chunk)) {
			checkChunkReading(t, chunk)
		}
	})
}

func checkChunkReading(t *testing.T, chunk string) {
	t.Helper()
	var m chunkMembers
	if err := m.read([]byte(chunk)); err != nil {
		t.Fatalf("%s: %v", chunk, err)
	}
	var want struct{ usage, groq, choices, id, object, model, created, failed gjson.Result }
	gjson.Parse(chunk).ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "error":
			want.failed = v
		case "usage":
			want.usage = v
		case "x_groq":
			want.groq = v
		case "choices":
			want.choices = v
		case "id":
			want.id = v
		case "object":
			want.object = v
		case "model":
			want.model = v
		case "created":
			want.created = v
		}
		return true
	})
	for _, p := range []struct {
		name      string
		got, want string
	}{
		{"error", m.failed, want.failed.Raw}, {"usage", m.usage, want.usage.Raw}, {"x_groq", m.groq, want.groq.Raw},
		{"id", stringOf(m.id), want.id.Str},
		{"object", stringOf(m.object), want.object.Str}, {"model", stringOf(m.model), want.model.Str},
	} {
		if p.got != p.want {
			t.Errorf("%s: %s: got %q, want %q", chunk, p.name, p.got, p.want)
		}
	}
	if got, want := intOf(m.created), want.created.Int(); got != want {
		t.Errorf("%s: created: got %d, want %d", chunk, got, want)
	}
	if got, want := isObject(m.usage), want.usage.IsObject(); got != want {
		t.Errorf("%s: usage is an object: got %v, want %v", chunk, got, want)
	}
	noChoices := want.choices.IsArray() && strings.TrimSpace(want.choices.Raw[1:len(want.choices.Raw)-1]) == ""
	if m.noChoices != noChoices {
		t.Errorf("%s: no choices: got %v, want %v", chunk, m.noChoices, noChoices)
	}
	var texts, wantTexts []string
	for _, c := range m.room[:m.n] {
		texts = append(texts, c.String())
	}
	for _, c := range m.more {
		texts = append(texts, c.String())
	}
	want.choices.ForEach(func(_, ch gjson.Result) bool {
		wantTexts = append(wantTexts, choiceTextsGJSON(ch)...)
		return true
	})
	// An empty text counts nothing (tokens.Text.Add("") adds no byte); the
	// gjson walk added one for a choice without delta or text.
	empty := func(s string) bool { return s == "" }
	texts, wantTexts = slices.DeleteFunc(texts, empty), slices.DeleteFunc(wantTexts, empty)
	if !slices.Equal(texts, wantTexts) {
		t.Errorf("%s: texts to count:\n got %q\nwant %q", chunk, texts, wantTexts)
	}
}

// choiceTextsGJSON returns the texts of a choice that the relay counted,
// in order, as it found them with gjson before it read chunks in one
// pass.
func choiceTextsGJSON(ch gjson.Result) []string {
	delta := ch.Get("delta")
	if !delta.Exists() {
		return []string{ch.Get("text").Str} // legacy completions
	}
	var texts []string
	delta.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "content":
			texts = append(texts, v.Str)
		case "tool_calls":
			texts = append(texts, v.Get("0.function.arguments").Str)
		case "function_call":
			texts = append(texts, v.Get("arguments").Str)
		}
		return true
	})
	return texts
}

// TestStreamRefusesInvalidChunk: a chunk that is not valid JSON ends the
// stream with the error the relay gave when it checked each chunk with
// gjson.ValidBytes before reading it, wherever the fault lies: in a
// member the relay reads, in one it skips, or after the object.
func TestStreamRefusesInvalidChunk(t *testing.T) {
	const good = `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"hi"}}],"usage":null}`
	for _, tt := range []struct{ name, chunk string }{
		{"truncated", good[:len(good)-1]},
		{"truncated in a string", `{"id":"c","choices":[{"delta":{"content":"h`},
		{"trailing garbage", good + ` x`},
		{"trailing value", `{"a":1} {"b":2}`},
		{"bad escape", `{"choices":[{"delta":{"content":"\q"}}]}`},
		{"bad escape in a skipped member", `{"system_fingerprint":"fp\x","choices":[]}`},
		{"control character in a string", "{\"choices\":[{\"delta\":{\"content\":\"a\x01b\"}}]}"},
		{"control character in a key", "{\"cho\tices\":[]}"},
		{"unclosed array", `{"choices":[{"delta":{"content":"hi"}}}`},
		{"unclosed array in a skipped member", `{"logprobs":[1,2}`},
		{"bad literal in a delta", `{"choices":[{"delta":{"refusal":nul}}]}`},
		{"trailing comma", `{"choices":[],"usage":{"prompt_tokens":1,}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if gjson.Valid(tt.chunk) || json.Valid([]byte(tt.chunk)) {
				t.Fatalf("%s: the chunk is valid", tt.chunk)
			}
			chunks, err := relayChat(t, "data: "+tt.chunk+"\n\n"+"data: "+good+"\n\ndata: [DONE]\n\n")
			want := provider.Unreadable("openai", errors.New("invalid JSON in stream"))
			var pe *provider.Error
			if !errors.As(err, &pe) || pe.Kind != provider.KindUnavailable || err.Error() != want.Error() {
				t.Fatalf("%s: relayed %q, error %v; want %v", tt.chunk, chunks, err, want)
			}
		})
	}
}

// relayChat reads an upstream chat stream's body with a stream, as Next
// gives it to the client, until the stream's end or first error.
func relayChat(t *testing.T, body string) (chunks [][]byte, err error) {
	t.Helper()
	req, _ := http.NewRequestWithContext(context.Background(), "POST", "http://upstream/", nil)
	resp := &http.Response{Body: io.NopCloser(strings.NewReader(body)), Request: req}
	s := &stream{c: &Client{opt: Options{Name: "openai"}}, resp: resp, cancel: func() {}, rd: sse.NewReader(resp.Body, 0),
		r: &provider.Request{Model: "m", UpstreamModel: "m", Stream: true, IncludeUsage: true}}
	defer s.Close()
	for {
		chunk, err := s.Next()
		if err == io.EOF {
			return chunks, nil
		}
		if err != nil {
			return chunks, err
		}
		chunks = append(chunks, bytes.Clone(chunk))
	}
}

// BenchmarkChunkEdit edits a chunk of one choice and one of three, as a
// stream without usage yet counts their texts: no allocation per chunk.
func BenchmarkChunkEdit(b *testing.B) {
	const head = `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1795701376,"model":"m","choices":[`
	choice := func(i int) string {
		return `{"index":` + strconv.Itoa(i) + `,"delta":{"content":" word"},"logprobs":null,"finish_reason":null}`
	}
	for _, n := range []int{1, 3} {
		choices := make([]string, n)
		for i := range choices {
			choices[i] = choice(i)
		}
		chunk := []byte(head + strings.Join(choices, ",") + `],"usage":null}`)
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			s := &stream{c: &Client{opt: Options{Name: "openai"}},
				r: &provider.Request{Model: "m", UpstreamModel: "m", Stream: true, IncludeUsage: true}}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if i++; i%4096 == 0 {
					s.text = tokens.Text{} // the counted text's growth, amortized
				}
				if _, keep, err := s.edit(chunk); !keep || err != nil {
					b.Fatal(keep, err)
				}
			}
		})
	}
}
