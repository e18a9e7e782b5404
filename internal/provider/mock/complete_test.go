package mock_test

import (
	"context"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/provider/mock"
)

// answer is the mock's answer to prompt, cut to max words.
func answer(prompt string, max int) string {
	words := append(strings.Fields("This is the Switchyard mock model answering:"), strings.Fields(prompt)...)
	return strings.Join(words[:min(len(words), 24, max)], " ")
}

func completion(body string) *provider.Request {
	return &provider.Request{Endpoint: provider.EndpointCompletion, Model: "mock-instruct", UpstreamModel: "mock-instruct", Body: []byte(body)}
}

// choice is what a test compares of a text_completion choice.
type choice struct {
	Index  int64
	Text   string
	Finish string
}

func TestComplete(t *testing.T) {
	long := strings.Repeat("word ", 20)
	tests := []struct {
		name string
		body string
		want []choice
	}{
		{"one prompt", `{"prompt":"Say this is a test"}`,
			[]choice{{0, " " + answer("Say this is a test", 16), "stop"}}},
		{"one choice per prompt", `{"prompt":["one two","three"]}`,
			[]choice{{0, " " + answer("one two", 16), "stop"}, {1, " " + answer("three", 16), "stop"}}},
		{"default max_tokens 16", `{"prompt":"` + long + `"}`,
			[]choice{{0, " " + answer(long, 16), "length"}}},
		{"max_tokens", `{"prompt":"hi","max_tokens":3}`,
			[]choice{{0, " This is the", "length"}}},
		{"max_tokens above the answer", `{"prompt":"` + long + `","max_tokens":100}`,
			[]choice{{0, " " + answer(long, 100), "stop"}}},
		{"empty prompt", `{"prompt":""}`,
			[]choice{{0, " " + answer("", 16), "stop"}}},
		{"token IDs are one prompt", `{"prompt":[1,2,3]}`,
			[]choice{{0, " " + answer("[1,2,3]", 16), "stop"}}},
		{"token ID arrays are one prompt each", `{"prompt":[[1,2],[3]]}`,
			[]choice{{0, " " + answer("[1,2]", 16), "stop"}, {1, " " + answer("[3]", 16), "stop"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := mock.New("mock").Complete(context.Background(), completion(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			r := gjson.ParseBytes(resp.Body)
			if r.Get("object").Str != "text_completion" || r.Get("model").Str != "mock-instruct" || !strings.HasPrefix(r.Get("id").Str, "cmpl-") {
				t.Errorf("head of %s", resp.Body)
			}
			var got []choice
			for _, c := range r.Get("choices").Array() {
				got = append(got, choice{c.Get("index").Int(), c.Get("text").Str, c.Get("finish_reason").Str})
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("choices (-want +got):\n%s", diff)
			}
			u := resp.Usage
			words := 0
			for _, c := range tt.want {
				words += len(strings.Fields(c.Text))
			}
			if u.CompletionTokens != words || u.PromptTokens == 0 || u.TotalTokens != u.PromptTokens+u.CompletionTokens {
				t.Errorf("usage %+v, want %d completion tokens and a consistent total", u, words)
			}
			if got := int(r.Get("usage.total_tokens").Int()); got != u.TotalTokens {
				t.Errorf("usage in the body %d, Usage %+v", got, u)
			}
		})
	}
}

func TestCompleteStream(t *testing.T) {
	const body = `{"prompt":["one two","three"],"max_tokens":9}`
	for _, includeUsage := range []bool{false, true} {
		t.Run("usage_"+strconv.FormatBool(includeUsage), func(t *testing.T) {
			p := mock.New("mock")
			want, err := p.Complete(context.Background(), completion(body))
			if err != nil {
				t.Fatal(err)
			}
			r := completion(body)
			r.Stream, r.IncludeUsage = true, includeUsage
			st, err := p.CompleteStream(context.Background(), r)
			if err != nil {
				t.Fatal(err)
			}
			chunks := drain(t, st)
			checkHead(t, chunks, "text_completion", includeUsage, want.Usage)
			if st.Usage() != want.Usage {
				t.Errorf("Usage() %+v, Complete's %+v", st.Usage(), want.Usage)
			}
			text := map[int64]string{}
			finish := map[int64]string{}
			for _, c := range chunks {
				for _, ch := range c.Get("choices").Array() {
					i := ch.Get("index").Int()
					if finish[i] != "" {
						t.Errorf("choice %d continues after its finish: %s", i, c.Raw)
					}
					text[i] += ch.Get("text").Str
					finish[i] = ch.Get("finish_reason").Str
				}
			}
			wantText, wantFinish := map[int64]string{}, map[int64]string{}
			for _, ch := range gjson.GetBytes(want.Body, "choices").Array() {
				wantText[ch.Get("index").Int()] = ch.Get("text").Str
				wantFinish[ch.Get("index").Int()] = ch.Get("finish_reason").Str
			}
			if diff := cmp.Diff([]any{wantText, wantFinish}, []any{text, finish}); diff != "" {
				t.Errorf("stream vs Complete [text finish] (-complete +stream):\n%s", diff)
			}
		})
	}
}

func TestEmbed(t *testing.T) {
	tests := []struct {
		name   string
		body   string
		inputs []string // what each vector embeds
		dims   int
	}{
		{"string", `{"input":"hello"}`, []string{"hello"}, 1536},
		{"strings", `{"input":["hello","world"],"dimensions":4}`, []string{"hello", "world"}, 4},
		{"token IDs are one input", `{"input":[15339,1917],"dimensions":8}`, []string{"[15339,1917]"}, 8},
		{"token ID arrays", `{"input":[[15339],[1917,0]],"dimensions":3}`, []string{"[15339]", "[1917,0]"}, 3},
		{"dimensions 1", `{"input":"x","dimensions":1}`, []string{"x"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := mock.New("mock").Embed(context.Background(), &provider.Request{Endpoint: provider.EndpointEmbedding,
				Model: "mock-embedding", UpstreamModel: "mock-embedding", Body: []byte(tt.body)})
			if err != nil {
				t.Fatal(err)
			}
			r := gjson.ParseBytes(resp.Body)
			if r.Get("object").Str != "list" || r.Get("model").Str != "mock-embedding" {
				t.Errorf("head of %s", resp.Body)
			}
			data := r.Get("data").Array()
			if len(data) != len(tt.inputs) {
				t.Fatalf("%d embeddings, want %d", len(data), len(tt.inputs))
			}
			for i, d := range data {
				v := vectorOf(d)
				if d.Get("index").Int() != int64(i) || d.Get("object").Str != "embedding" || len(v) != tt.dims {
					t.Errorf("embedding %d: index %d, object %q, %d dims; want %d dims", i, d.Get("index").Int(), d.Get("object").Str, len(v), tt.dims)
				}
				if n := norm(v); math.Abs(n-1) > 1e-5 {
					t.Errorf("embedding %d has norm %v, want 1", i, n)
				}
				// Deterministic: the same input alone gives the same vector.
				alone, err := mock.New("other").Embed(context.Background(), &provider.Request{Model: "mock-embedding",
					Body: []byte(`{"input":` + strconv.Quote(tt.inputs[i]) + `,"dimensions":` + strconv.Itoa(tt.dims) + `}`)})
				if err != nil {
					t.Fatal(err)
				}
				if tt.inputs[i][0] != '[' {
					if diff := cmp.Diff(v, vectorOf(gjson.GetBytes(alone.Body, "data.0"))); diff != "" {
						t.Errorf("embedding %d differs from the same input alone (-batch +alone):\n%s", i, diff)
					}
				}
			}
			if len(data) == 2 && cmp.Equal(vectorOf(data[0]), vectorOf(data[1])) {
				t.Error("two inputs have the same vector")
			}
			if u := resp.Usage; u.PromptTokens == 0 || u.TotalTokens != u.PromptTokens || u.CompletionTokens != 0 {
				t.Errorf("usage %+v", u)
			}
		})
	}
}

func vectorOf(d gjson.Result) []float64 {
	var v []float64
	for _, x := range d.Get("embedding").Array() {
		v = append(v, x.Float())
	}
	return v
}

func norm(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s)
}
