package fakeopenai

import (
	"strings"

	"github.com/tidwall/gjson"
)

// kind is the endpoint family a model serves.
type kind uint8

const (
	chatModel kind = iota
	completionModel
	embeddingModel
	anyModel // "fake-*": accepted everywhere
)

// model is one entry of the fake catalogue.
type model struct {
	id        string
	owner     string
	kind      kind
	context   int  // context window in tokens
	maxOutput int  // completion token limit; 0 means none
	dims      int  // native embedding dimensions
	reasoning bool // o-series and gpt-5: max_completion_tokens only, default sampling only
}

// catalogue lists the upstream_model_id column of models.csv for the
// openai, together, groq, fireworks and deepinfra providers, plus the host
// model ids used by the llama-hosts fixtures and wire-formats section 4.
var catalogue = []model{
	{id: "gpt-4o", context: 128000, maxOutput: 16384},
	{id: "gpt-4o-2024-05-13", context: 128000, maxOutput: 4096},
	{id: "gpt-4o-2024-08-06", context: 128000, maxOutput: 16384},
	{id: "gpt-4o-2024-11-20", context: 128000, maxOutput: 16384},
	{id: "gpt-4o-mini", context: 128000, maxOutput: 16384},
	{id: "gpt-4o-mini-2024-07-18", context: 128000, maxOutput: 16384},
	{id: "gpt-4.1", context: 1047576, maxOutput: 32768},
	{id: "gpt-4.1-2025-04-14", context: 1047576, maxOutput: 32768},
	{id: "gpt-4.1-mini", context: 1047576, maxOutput: 32768},
	{id: "gpt-4.1-nano", context: 1047576, maxOutput: 32768},
	{id: "gpt-4-turbo", context: 128000, maxOutput: 4096},
	{id: "gpt-4-turbo-2024-04-09", context: 128000, maxOutput: 4096},
	{id: "gpt-4", context: 8192, maxOutput: 4096},
	{id: "gpt-3.5-turbo", context: 16385, maxOutput: 4096},
	{id: "gpt-3.5-turbo-0125", context: 16385, maxOutput: 4096},
	{id: "gpt-3.5-turbo-instruct", kind: completionModel, context: 8192, maxOutput: 4096},
	{id: "davinci-002", kind: completionModel, context: 16384, maxOutput: 4096},
	{id: "babbage-002", kind: completionModel, context: 16384, maxOutput: 4096},
	{id: "o1", context: 200000, maxOutput: 100000, reasoning: true},
	{id: "o1-mini", context: 128000, maxOutput: 65536, reasoning: true},
	{id: "o3", context: 200000, maxOutput: 100000, reasoning: true},
	{id: "o3-mini", context: 200000, maxOutput: 100000, reasoning: true},
	{id: "o4-mini", context: 200000, maxOutput: 100000, reasoning: true},
	{id: "gpt-5", context: 272000, maxOutput: 128000, reasoning: true},
	{id: "gpt-5-2025-08-07", context: 272000, maxOutput: 128000, reasoning: true},
	{id: "gpt-5-mini", context: 272000, maxOutput: 128000, reasoning: true},
	{id: "gpt-5-nano", context: 272000, maxOutput: 128000, reasoning: true},
	{id: "gpt-5.1", context: 272000, maxOutput: 128000, reasoning: true},
	{id: "gpt-5.2", context: 272000, maxOutput: 128000, reasoning: true},
	{id: "gpt-5.4", context: 1050000, maxOutput: 128000, reasoning: true},
	{id: "gpt-5.4-mini", context: 1050000, maxOutput: 128000, reasoning: true},
	{id: "gpt-5.4-nano", context: 1050000, maxOutput: 128000, reasoning: true},
	{id: "gpt-5.5", context: 1050000, maxOutput: 128000, reasoning: true},
	{id: "text-embedding-3-small", kind: embeddingModel, context: 8191, dims: 1536},
	{id: "text-embedding-3-large", kind: embeddingModel, context: 8191, dims: 3072},
	{id: "text-embedding-ada-002", kind: embeddingModel, context: 8191, dims: 1536},
	{id: "meta-llama/Meta-Llama-3-8B-Instruct", owner: "deepinfra", context: 8192, maxOutput: 8192},
	{id: "accounts/fireworks/models/llama-v3-70b-instruct", owner: "fireworks", context: 8192, maxOutput: 8192},
	{id: "llama-3.1-8b-instant", owner: "groq", context: 128000, maxOutput: 8192},
	{id: "meta-llama/Meta-Llama-3.1-70B-Instruct-Turbo", owner: "together", context: 131072},
	{id: "meta-llama/Meta-Llama-3.1-405B-Instruct-Turbo", owner: "together", context: 130815},
	{id: "accounts/fireworks/models/llama-v3p2-1b-instruct", owner: "fireworks", context: 16384, maxOutput: 16384},
	{id: "meta-llama/Llama-3.2-3B-Instruct", owner: "deepinfra", context: 131072, maxOutput: 131072},
	{id: "accounts/fireworks/models/llama-v3p2-11b-vision-instruct", owner: "fireworks", context: 16384, maxOutput: 16384},
	{id: "accounts/fireworks/models/llama-v3p2-90b-vision-instruct", owner: "fireworks", context: 16384, maxOutput: 16384},
	{id: "meta-llama/Llama-3.3-70B-Instruct-Turbo", owner: "together", context: 131072},
	{id: "meta-llama/llama-4-scout-17b-16e-instruct", owner: "groq", context: 131072, maxOutput: 8192},
	{id: "meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8", owner: "together", context: 524288},
	// Fixture and wire-formats examples that are not in models.csv.
	{id: "llama-3.3-70b-versatile", owner: "groq", context: 131072, maxOutput: 32768},
	{id: "accounts/fireworks/models/llama-v3p1-70b-instruct", owner: "fireworks", context: 131072},
	{id: "accounts/fireworks/models/llama-v3p3-70b-instruct", owner: "fireworks", context: 131072},
	{id: "meta-llama/Meta-Llama-3.1-8B-Instruct-Turbo", owner: "together", context: 131072},
	{id: "meta-llama/Meta-Llama-3.1-70B-Instruct", owner: "deepinfra", context: 131072},
	{id: "meta-llama/Llama-3.1-8B-Instruct", owner: "vllm", context: 131072},
	{id: "llama3.1:8b", owner: "library", context: 131072},
}

// modelIndex maps a model id to its catalogue entry; read-only after init.
var modelIndex = func() map[string]model {
	m := make(map[string]model, len(catalogue))
	for _, e := range catalogue {
		if e.owner == "" {
			e.owner = "system"
		}
		m[e.id] = e
	}
	return m
}()

// lookupModel finds id in the catalogue; any id starting with "fake-" is a
// model of every kind with no limits.
func lookupModel(id string) (model, bool) {
	if strings.HasPrefix(id, "fake-") {
		return model{id: id, owner: "fake", kind: anyModel, context: 1 << 30, dims: 1536}, true
	}
	m, ok := modelIndex[id]
	return m, ok
}

func appendModel(b []byte, m model) []byte {
	b = append(b, `{"id":`...)
	b = gjson.AppendJSONString(b, m.id)
	b = append(b, `,"object":"model","created":1721172741,"owned_by":`...)
	b = gjson.AppendJSONString(b, m.owner)
	return append(b, '}')
}

func (s *Server) listModels(c *call) {
	b := append(make([]byte, 0, 96*len(catalogue)), `{"object":"list","data":[`...)
	for i, e := range catalogue {
		if i > 0 {
			b = append(b, ',')
		}
		e = modelIndex[e.id]
		b = appendModel(b, e)
	}
	c.json(append(b, "]}"...))
}

func (s *Server) getModel(c *call) {
	id := c.r.PathValue("model")
	m, ok := lookupModel(id)
	if !ok {
		c.fail(errModelNotFound(id))
		return
	}
	c.json(appendModel(nil, m))
}

// resolveModel looks up the request's model and checks that it serves want.
func resolveModel(id string, want kind) (model, error) {
	m, ok := lookupModel(id)
	if !ok {
		return m, errModelNotFound(id)
	}
	if m.kind == want || m.kind == anyModel {
		return m, nil
	}
	switch {
	case want == chatModel && m.kind == completionModel:
		return m, errWrongEndpoint("This is not a chat model and thus not supported in the v1/chat/completions endpoint. Did you mean to use v1/completions?")
	case want == completionModel && m.kind == chatModel:
		return m, errWrongEndpoint("This is a chat model and not supported in the v1/completions endpoint. Did you mean to use v1/chat/completions?")
	case want == chatModel:
		return m, errWrongEndpoint("This is not a chat model and thus not supported in the v1/chat/completions endpoint.")
	case want == completionModel:
		return m, errWrongEndpoint("This model is not supported in the v1/completions endpoint.")
	}
	return m, errWrongEndpoint("This is not an embedding model and thus not supported in the v1/embeddings endpoint.")
}
