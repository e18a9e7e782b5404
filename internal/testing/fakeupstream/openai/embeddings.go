package fakeopenai

import (
	"encoding/base64"
	"encoding/binary"
	"math"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// embeddingFields are the fields of an embeddings request; the spec has
// additionalProperties:false. input and encoding_format are checked by
// parseEmbedding.
var embeddingFields = fields{
	"model":           str,
	"input":           anything,
	"encoding_format": anything,
	"dimensions":      integer(1, math.MaxInt32),
	"user":            str,
}

func anything(gjson.Result, string) error { return nil }

const (
	maxInputs         = 2048
	maxInputTokens    = 8191
	maxRequestTokens  = 300000
	ada002            = "text-embedding-ada-002"
	embeddingHashSeed = 14695981039346656037 // FNV-1a offset basis
)

var errBadInput = badRequest("", "", "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.")

// input is one prompt or embeddings input: text, or token ids.
type input struct {
	text   string
	tokens int
	ids    gjson.Result // the token array of a token input
}

// readInputs reads string | string[] | int[] | int[][]; one int[] is one
// input. It reports false for anything else.
func readInputs(v gjson.Result) ([]input, bool) {
	if v.Type == gjson.String {
		return []input{{text: v.Str, tokens: countWords(v.Str)}}, true
	}
	items := v.Array()
	if !v.IsArray() || len(items) == 0 {
		return nil, false
	}
	if items[0].Type == gjson.Number {
		return []input{{tokens: len(items), ids: v}}, tokenIDs(items)
	}
	texts := items[0].Type == gjson.String
	out := make([]input, 0, len(items))
	for _, it := range items {
		if texts && it.Type == gjson.String {
			out = append(out, input{text: it.Str, tokens: countWords(it.Str)})
			continue
		}
		ids := it.Array()
		if texts || !it.IsArray() || len(ids) == 0 || !tokenIDs(ids) {
			return nil, false
		}
		out = append(out, input{tokens: len(ids), ids: it})
	}
	return out, true
}

func tokenIDs(items []gjson.Result) bool {
	for _, id := range items {
		if !isInt(id) || id.Num < 0 {
			return false
		}
	}
	return true
}

// embedRequest is what the fake needs from a validated embeddings request.
type embedRequest struct {
	model  string
	inputs []input
	base64 bool
	dims   int
	tokens int
}

func (s *Server) parseEmbedding(body []byte) (*embedRequest, error) {
	root, err := parseBody(body)
	if err != nil {
		return nil, err
	}
	if err := checkObject(root, "", embeddingFields, "model", "input"); err != nil {
		return nil, err
	}
	m, err := resolveModel(root.Get("model").Str, embeddingModel)
	if err != nil {
		return nil, err
	}
	q := &embedRequest{model: m.id, dims: m.dims}
	if err := q.readInput(root.Get("input")); err != nil {
		return nil, err
	}
	if f := root.Get("encoding_format"); present(f) && !s.opt.FloatOnly {
		if err := enum("float", "base64")(f, "encoding_format"); err != nil {
			return nil, err
		}
		q.base64 = f.Str == "base64"
	}
	if d := root.Get("dimensions"); present(d) {
		if m.id == ada002 {
			return nil, badRequest("dimensions", "", "This model does not support specifying dimensions.")
		}
		if err := integer(1, int64(m.dims))(d, "dimensions"); err != nil {
			return nil, err
		}
		q.dims = int(d.Int())
	}
	return q, nil
}

func (q *embedRequest) readInput(v gjson.Result) error {
	inputs, ok := readInputs(v)
	if !ok || len(v.Array()) > maxInputs && v.Type != gjson.String {
		return errBadInput
	}
	for _, in := range inputs {
		if in.text == "" && !in.ids.Exists() {
			return errBadInput // empty strings are not allowed
		}
		if in.tokens > maxInputTokens {
			return badRequest("input", "", "This model's maximum context length is %d tokens, however you requested %d tokens (%d in your prompt; 0 for the completion). Please reduce your prompt; or completion length.", maxInputTokens+1, in.tokens, in.tokens)
		}
		q.tokens += in.tokens
	}
	if q.tokens > maxRequestTokens {
		return badRequest("input", "max_tokens_per_request", "Requested %d tokens, max %d tokens per request", q.tokens, maxRequestTokens)
	}
	q.inputs = inputs
	return nil
}

func (s *Server) embeddings(c *call) {
	q, err := s.parseEmbedding(c.body)
	if err != nil {
		c.fail(err)
		return
	}
	if t := findTrigger(q.inputs[0].text); t != "" && !strings.HasPrefix(t, "midstream-") {
		c.trigger(t, q.model)
		return
	}
	c.json(q.response())
}

func (q *embedRequest) response() []byte {
	per := 12*q.dims + 64
	if q.base64 {
		per = q.dims*16/3 + 64
	}
	b := make([]byte, 0, per*len(q.inputs)+128)
	b = append(b, `{"object":"list","data":[`...)
	vec := make([]float32, q.dims)
	raw := make([]byte, 4*q.dims)
	for i, in := range q.inputs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"object":"embedding","index":`...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, `,"embedding":`...)
		embed(vec, q.model, in)
		b = q.appendVector(b, vec, raw)
		b = append(b, '}')
	}
	b = append(b, `],"model":`...)
	b = gjson.AppendJSONString(b, q.model)
	b = append(b, `,"usage":{"prompt_tokens":`...)
	b = strconv.AppendInt(b, int64(q.tokens), 10)
	b = append(b, `,"total_tokens":`...)
	b = strconv.AppendInt(b, int64(q.tokens), 10)
	return append(b, "}}"...)
}

// appendVector renders vec as a float array, or as base64 of little-endian
// float32s (wire-formats 1.6), using raw as scratch.
func (q *embedRequest) appendVector(b []byte, vec []float32, raw []byte) []byte {
	if q.base64 {
		for i, f := range vec {
			binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(f))
		}
		b = append(b, '"')
		b = base64.StdEncoding.AppendEncode(b, raw)
		return append(b, '"')
	}
	b = append(b, '[')
	for i, f := range vec {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendFloat(b, float64(f), 'g', -1, 32)
	}
	return append(b, ']')
}

// embed fills vec with a unit vector derived from a hash of the model and
// the input. A shorter vec is a prefix of the longer one, renormalised, as
// with text-embedding-3's dimensions.
func embed(vec []float32, model string, in input) {
	h := uint64(embeddingHashSeed)
	mix := func(c byte) { h = (h ^ uint64(c)) * 1099511628211 }
	for i := 0; i < len(model); i++ {
		mix(model[i])
	}
	mix(0)
	for i := 0; i < len(in.text); i++ {
		mix(in.text[i])
	}
	for _, id := range in.ids.Array() {
		for v := uint64(id.Int()) | 1<<63; v > 0; v >>= 8 {
			mix(byte(v))
		}
	}
	var sum float64
	for i := range vec {
		h += 0x9e3779b97f4a7c15 // splitmix64
		z := (h ^ h>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		z ^= z >> 31
		f := float64(int64(z>>40)-1<<23) / (1 << 23)
		vec[i] = float32(f)
		sum += f * f
	}
	scale := 1 / math.Sqrt(sum)
	for i := range vec {
		vec[i] = float32(float64(vec[i]) * scale)
	}
}
