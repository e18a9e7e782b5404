package gemini

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/provider"
	fakegemini "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/gemini"
)

func embedReq(body string) *provider.Request {
	return &provider.Request{Endpoint: provider.EndpointEmbedding, Model: "gemini-embedding-001", UpstreamModel: "gemini-embedding-001", Body: []byte(body)}
}

func TestEmbed(t *testing.T) {
	s, c := setup(t, fakegemini.Options{})
	for _, tt := range []struct {
		name, body string
		n, dims    int
		unitLength bool
	}{
		{"one string", `{"model":"m","input":"The quick brown fox"}`, 1, 3072, true},
		{"dimensions", `{"model":"m","input":["The food was delicious and the waiter...","The service was slow."],"dimensions":4,"encoding_format":"base64"}`, 2, 4, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := c.Embed(t.Context(), embedReq(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			got := gjson.ParseBytes(resp.Body)
			if got.Get("object").Str != "list" || got.Get("model").Str != "gemini-embedding-001" || int(got.Get("data.#").Int()) != tt.n {
				t.Fatalf("answer %s", resp.Body)
			}
			for i, d := range got.Get("data").Array() {
				vals := d.Get("embedding").Array()
				if d.Get("index").Int() != int64(i) || d.Get("object").Str != "embedding" || len(vals) != tt.dims {
					t.Errorf("data[%d]: index %d, %d values, want %d", i, d.Get("index").Int(), len(vals), tt.dims)
				}
				var sum float64
				for _, v := range vals {
					sum += v.Num * v.Num
				}
				if math.Abs(math.Sqrt(sum)-1) > 1e-5 {
					t.Errorf("data[%d]: length %g, want 1", i, math.Sqrt(sum))
				}
			}
			if !resp.Usage.Estimated || resp.Usage.PromptTokens == 0 || resp.Usage.TotalTokens != resp.Usage.PromptTokens ||
				got.Get("usage.prompt_tokens").Int() != int64(resp.Usage.PromptTokens) {
				t.Errorf("usage %+v, body %s", resp.Usage, got.Get("usage").Raw)
			}
			sent := gjson.ParseBytes(s.Last().Body)
			if sent.Get("requests.0.model").Str != "models/gemini-embedding-001" {
				t.Errorf("sent %s", s.Last().Body)
			}
			if tt.dims != 3072 && sent.Get("requests.0.outputDimensionality").Int() != int64(tt.dims) {
				t.Errorf("outputDimensionality not sent: %s", s.Last().Body)
			}
		})
	}
}

func TestEmbedBatches(t *testing.T) {
	s, c := setup(t, fakegemini.Options{})
	inputs := make([]string, 150)
	for i := range inputs {
		inputs[i] = fmt.Sprintf("%q", fmt.Sprint("text ", i))
	}
	resp, err := c.Embed(t.Context(), embedReq(`{"input":[`+strings.Join(inputs, ",")+`],"dimensions":8}`))
	if err != nil {
		t.Fatal(err)
	}
	if n := gjson.GetBytes(resp.Body, "data.#").Int(); n != 150 {
		t.Errorf("%d embeddings, want 150", n)
	}
	var sizes []int64
	for _, r := range s.Requests() {
		sizes = append(sizes, gjson.GetBytes(r.Body, "requests.#").Int())
	}
	if diff := cmp.Diff([]int64{100, 50}, sizes); diff != "" {
		t.Errorf("batches (-want +got):\n%s", diff)
	}
	if gjson.GetBytes(resp.Body, "data.149.index").Int() != 149 {
		t.Errorf("last index: %s", gjson.GetBytes(resp.Body, "data.149").Raw)
	}
}

func TestEmbedRefused(t *testing.T) {
	s, c := setup(t, fakegemini.Options{})
	for _, tt := range []struct {
		name, body string
		kind       provider.Kind
		param      string
	}{
		{"token array", `{"input":[791,4062,14198]}`, provider.KindBadRequest, "input"},
		{"token arrays", `{"input":[[791,3691],[791]]}`, provider.KindBadRequest, "input"},
		{"empty string", `{"input":["a",""]}`, provider.KindBadRequest, "input"},
		{"too many dimensions", `{"input":"a","dimensions":4000}`, provider.KindBadRequest, ""},
		{"upstream error", `{"input":"fake:error:429"}`, provider.KindRateLimit, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.Embed(t.Context(), embedReq(tt.body))
			var pe *provider.Error
			if !errors.As(err, &pe) || pe.Kind != tt.kind || pe.Param != tt.param {
				t.Errorf("error %v, want kind %d param %q", err, tt.kind, tt.param)
			}
		})
	}
	for _, r := range s.Requests() {
		if strings.Contains(string(r.Body), "791") {
			t.Errorf("token input reached the upstream: %s", r.Body)
		}
	}
}
