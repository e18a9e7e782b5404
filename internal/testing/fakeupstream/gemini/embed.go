package fakegemini

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/tidwall/gjson"
)

const maxEmbedBatch = 100

var taskTypes = []string{"TASK_TYPE_UNSPECIFIED", "RETRIEVAL_QUERY", "RETRIEVAL_DOCUMENT", "SEMANTIC_SIMILARITY",
	"CLASSIFICATION", "CLUSTERING", "QUESTION_ANSWERING", "FACT_VERIFICATION", "CODE_RETRIEVAL_QUERY"}

type values struct {
	Values []float32 `json:"values"`
}

// embedBatch answers :batchEmbedContents, {"requests":[…]}.
func (c *call) embedBatch() {
	root := gjson.ParseBytes(c.body)
	if !gjson.ValidBytes(c.body) {
		c.fail(invalid("Invalid JSON payload received. Unexpected token."))
		return
	}
	if err := fields(root, "", "requests"); err != nil {
		c.fail(err)
		return
	}
	reqs := root.Get("requests").Array()
	if len(reqs) == 0 || len(reqs) > maxEmbedBatch {
		c.fail(invalid("* BatchEmbedContentsRequest.requests: between 1 and %d requests can be in one batch\n", maxEmbedBatch))
		return
	}
	var out []values
	for i, r := range reqs {
		v, text, err := c.embedRequest(fmt.Sprintf("requests[%d]", i), r, true)
		if err != nil {
			c.fail(err)
			return
		}
		if i == 0 && c.trigger(text) {
			return
		}
		out = append(out, values{v})
	}
	b, _ := json.Marshal(map[string][]values{"embeddings": out})
	c.json(b)
}

// embedOne answers :embedContent.
func (c *call) embedOne() {
	if !gjson.ValidBytes(c.body) {
		c.fail(invalid("Invalid JSON payload received. Unexpected token."))
		return
	}
	v, text, err := c.embedRequest("", gjson.ParseBytes(c.body), false)
	if err != nil {
		c.fail(err)
		return
	}
	if c.trigger(text) {
		return
	}
	b, _ := json.Marshal(map[string]values{"embedding": {v}})
	c.json(b)
}

// trigger answers a failure trigger in an embedding's text and reports
// whether it did.
func (c *call) trigger(text string) bool {
	switch t := findTrigger(text); {
	case t == "hang":
		<-c.r.Context().Done()
	case t == "badkey":
		c.fail(errBadKey)
	case strings.HasPrefix(t, "error:"):
		c.fail(triggerError(strings.TrimPrefix(t, "error:"), c.model))
	default:
		return false
	}
	return true
}

// embedRequest checks one EmbedContentRequest and returns its vector and
// text. In a batch, model must name the URL's model.
func (c *call) embedRequest(at string, r gjson.Result, batch bool) ([]float32, string, error) {
	if err := fields(r, at, "model", "content", "taskType", "title", "outputDimensionality"); err != nil {
		return nil, "", err
	}
	if m := r.Get("model"); (batch || m.Exists()) && m.String() != "models/"+c.model {
		return nil, "", invalid("* BatchEmbedContentsRequest.%s.model: the model must be models/%s, as in the URL, got %s\n", at, c.model, m.Raw)
	}
	text, err := embedText(at+".content", r.Get("content"))
	if err != nil {
		return nil, "", err
	}
	task := r.Get("taskType")
	if task.Exists() && !slices.Contains(taskTypes, task.String()) {
		return nil, "", badValue(at+".task_type", "unknown task type "+task.Raw)
	}
	if r.Get("title").Exists() && task.Str != "RETRIEVAL_DOCUMENT" {
		return nil, "", invalid("* %s.title: title is only allowed with task type RETRIEVAL_DOCUMENT\n", at)
	}
	m, _ := lookup(c.model)
	dims, err := integer(r.Get("outputDimensionality"), at+".output_dimensionality", 1, int64(m.dims))
	if err != nil {
		return nil, "", err
	}
	if dims == 0 {
		dims = int64(m.dims)
	}
	return vector(text, int(dims), int(dims) == m.dims), text, nil
}

func embedText(at string, content gjson.Result) (string, error) {
	if err := fields(content, at, "parts", "role"); err != nil {
		return "", err
	}
	parts := content.Get("parts").Array()
	if len(parts) == 0 {
		return "", badValue(at+".parts", "contents.parts must not be empty.")
	}
	var texts []string
	for j, p := range parts {
		pat := fmt.Sprintf("%s.parts[%d]", at, j)
		if err := fields(p, pat, "text"); err != nil {
			return "", err
		}
		if t := p.Get("text"); t.Type != gjson.String || t.Str == "" {
			return "", badValue(pat+".data", "required oneof field 'data' must have one initialized field")
		}
		texts = append(texts, p.Get("text").Str)
	}
	return strings.Join(texts, " "), nil
}

// vector is a deterministic embedding of text: the same text gives the
// same vector, a shorter one is its prefix (as with Matryoshka models),
// and only full-size vectors are unit length (as Google documents).
func vector(text string, dims int, normalize bool) []float32 {
	sum := sha256.Sum256([]byte(text))
	rng := rand.New(rand.NewPCG(binary.LittleEndian.Uint64(sum[:8]), binary.LittleEndian.Uint64(sum[8:16])))
	v := make([]float64, dims)
	var norm float64
	for i := range v {
		v[i] = rng.Float64()*2 - 1
		norm += v[i] * v[i]
	}
	out := make([]float32, dims)
	for i, x := range v {
		if normalize {
			x /= math.Sqrt(norm)
		} else {
			x /= 10
		}
		out[i] = float32(x)
	}
	return out
}
