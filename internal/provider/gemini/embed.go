package gemini

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/tokens"
)

// maxBatch is how many texts one :batchEmbedContents call may carry.
const maxBatch = 100

type embedRequest struct {
	Model                string       `json:"model"`
	Content              embedContent `json:"content"`
	OutputDimensionality int          `json:"outputDimensionality,omitempty"`
}

type embedContent struct {
	Parts []part `json:"parts"`
}

// Embed answers an embeddings request with :batchEmbedContents, in
// batches of 100, and returns float arrays (the gateway encodes base64).
func (c *Client) Embed(ctx context.Context, r *provider.Request) (*provider.Response, error) {
	texts, dims, err := embedInputs(r.Body)
	if err != nil {
		return nil, owned(c.opt.Name, err)
	}
	model := "models/" + strings.TrimPrefix(r.UpstreamModel, "models/")
	vectors := make([][]byte, 0, len(texts))
	for start := 0; start < len(texts); start += maxBatch {
		batch := texts[start:min(start+maxBatch, len(texts))]
		reqs := make([]embedRequest, len(batch))
		for i, t := range batch {
			reqs[i] = embedRequest{Model: model, Content: embedContent{Parts: []part{{Text: t}}}, OutputDimensionality: dims}
		}
		body, err := marshal(map[string]any{"requests": reqs})
		if err != nil {
			return nil, owned(c.opt.Name, refuse(codeInvalid, "input", "The input cannot be translated: %v.", err))
		}
		b, err := c.call(ctx, c.endpoint(r.UpstreamModel, "batchEmbedContents"), body)
		if err != nil {
			return nil, err
		}
		vs, err := embedValues(b, len(batch), dims > 0)
		if err != nil {
			return nil, provider.Unreadable(c.opt.Name, err)
		}
		vectors = append(vectors, vs...)
	}
	var u provider.Usage
	for _, t := range texts {
		u.PromptTokens += tokens.Count(r.Model, t)
	}
	u.TotalTokens, u.Estimated = u.PromptTokens, true // Gemini reports no usage
	return &provider.Response{Body: embeddingList(r.Model, vectors, u), Usage: u}, nil
}

// embedInputs reads input (a string or an array of strings; Gemini takes
// no token IDs) and dimensions.
func embedInputs(body []byte) ([]string, int, error) {
	root := gjson.ParseBytes(body)
	if !gjson.ValidBytes(body) || !root.IsObject() {
		return nil, 0, refuse(codeInvalid, "", "The request body must be a JSON object.")
	}
	in := root.Get("input")
	items := []gjson.Result{in}
	if in.IsArray() {
		items = in.Array()
	}
	if len(items) == 0 {
		return nil, 0, refuse(codeInvalid, "input", "Expected at least one input.")
	}
	texts := make([]string, len(items))
	for i, v := range items {
		switch {
		case v.Type == gjson.Number || v.IsArray():
			return nil, 0, refuse(codeUnsupported, "input", "Gemini embeds text only: token ID inputs are not supported.")
		case v.Type != gjson.String || v.Str == "":
			return nil, 0, refuse(codeInvalid, "input", "Expected a non-empty string or an array of non-empty strings.")
		}
		texts[i] = v.Str
	}
	dims, _, err := integer(root, "dimensions", 1, math.MaxInt32)
	return texts, int(dims), err
}

// embedValues reads n vectors from a batchEmbedContents answer as JSON
// arrays, scaled to unit length when normalize.
func embedValues(b []byte, n int, normalize bool) ([][]byte, error) {
	root := gjson.ParseBytes(b)
	if !gjson.ValidBytes(b) || !root.IsObject() {
		return nil, errNotJSON
	}
	embs := list(root.Get("embeddings"))
	if len(embs) != n {
		return nil, fmt.Errorf("%d embeddings for %d inputs", len(embs), n)
	}
	out := make([][]byte, n)
	for i, e := range embs {
		vals := list(e.Get("values"))
		if len(vals) == 0 {
			return nil, errors.New("an embedding has no values")
		}
		f := make([]float64, len(vals))
		for k, v := range vals {
			if v.Type != gjson.Number {
				return nil, errors.New("an embedding value is not a number")
			}
			f[k] = v.Num
		}
		if normalize {
			unit(f)
		}
		out[i] = floats(f)
	}
	return out, nil
}

// unit scales v to length 1: Gemini normalizes only full-size vectors,
// OpenAI clients expect every vector normalized.
func unit(v []float64) {
	var sum float64
	for _, x := range v {
		sum += x * x
	}
	if n := math.Sqrt(sum); n > 0 && !math.IsInf(n, 0) {
		for i := range v {
			v[i] /= n
		}
	}
}

// floats renders a vector as a JSON array of float32-precision numbers.
func floats(v []float64) []byte {
	b := make([]byte, 0, len(v)*12+2)
	b = append(b, '[')
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		if math.IsInf(x, 0) || math.IsNaN(x) || math.Abs(x) > math.MaxFloat32 {
			x = 0
		}
		b = strconv.AppendFloat(b, x, 'g', -1, 32)
	}
	return append(b, ']')
}

// embeddingList renders OpenAI's embeddings answer.
func embeddingList(model string, vectors [][]byte, u provider.Usage) []byte {
	b := []byte(`{"object":"list","data":[`)
	for i, v := range vectors {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"object":"embedding","index":`...)
		b = appendInt(b, i)
		b = append(b, `,"embedding":`...)
		b = append(b, v...)
		b = append(b, '}')
	}
	b = append(b, `],"model":`...)
	b = gjson.AppendJSONString(b, model)
	b = append(b, `,"usage":{"prompt_tokens":`...)
	b = appendInt(b, u.PromptTokens)
	b = append(b, `,"total_tokens":`...)
	b = appendInt(b, u.TotalTokens)
	return append(b, "}}"...)
}
