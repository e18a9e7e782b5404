// Package provider defines what the gateway asks of an upstream: small
// interfaces for chat, streaming, legacy completions and embeddings, the
// request and response they exchange, and the upstream Error type.
package provider

import (
	"context"
	"net/http"

	"github.com/switchyard-gw/switchyard/internal/catalog"
)

// Endpoint names an API operation.
type Endpoint int

// Endpoints.
const (
	EndpointChat Endpoint = iota
	EndpointCompletion
	EndpointEmbedding
	// EndpointMessages is Anthropic's Messages API served inbound: the
	// request body is in that API's shape. Upstreams that serve it
	// natively (Forwarder) get it as is; others get its chat translation.
	EndpointMessages
	// EndpointResponses is OpenAI's Responses API served inbound, as
	// EndpointMessages.
	EndpointResponses
)

func (e Endpoint) String() string {
	switch e {
	case EndpointChat:
		return "chat.completions"
	case EndpointCompletion:
		return "completions"
	case EndpointEmbedding:
		return "embeddings"
	case EndpointMessages:
		return "messages"
	case EndpointResponses:
		return "responses"
	}
	return "unknown"
}

// Request is one call to an upstream, in OpenAI's wire format.
type Request struct {
	Endpoint Endpoint
	// Model is the ID the client asked for; responses name it unless the
	// upstream answered with a more precise snapshot of the same ID.
	Model string
	// UpstreamModel is the ID the provider knows the model by.
	UpstreamModel string
	// Body is the client's validated JSON body. OpenAI-compatible
	// adapters forward it with only the model (and stream options)
	// edited; others translate it. Adapters must not modify it.
	Body []byte
	// Stream reports whether the client asked for a stream.
	Stream bool
	// IncludeUsage reports whether the client asked for the usage chunk.
	IncludeUsage bool
	// RequestID is the gateway's request ID, forwarded upstream.
	RequestID string
	// MaxOutputTokens is the catalogue's output limit for the model (0
	// when unknown), for upstreams that need max_tokens.
	MaxOutputTokens int
	// Reasoning is how the model's thinking is steered upstream: what a
	// client's reasoning_effort becomes (docs/providers.md).
	Reasoning catalog.Reasoning
	// StructuredOutputs reports whether the upstream constrains output to
	// a JSON schema natively (catalog.Model.StructuredOutputs).
	StructuredOutputs bool
	// Header holds the client's headers a Forwarder passes on unchanged
	// (anthropic-beta for Messages); nil for other requests.
	Header http.Header
}

// Usage is token usage as reported by the upstream (or counted).
type Usage struct {
	PromptTokens     int
	CompletionTokens int
	TotalTokens      int
	CachedTokens     int
	// ReasoningTokens are the completion tokens spent thinking, part of
	// CompletionTokens (and billed as output).
	ReasoningTokens int
	// Estimated reports counts made by the gateway, not the upstream.
	Estimated bool
}

// Response is a complete, OpenAI-shaped answer.
type Response struct {
	Body   []byte // JSON for the client
	Usage  Usage
	Header http.Header // upstream headers worth passing on (may be nil)
}

// Stream is an OpenAI-shaped answer arriving in chunks.
type Stream interface {
	// Next returns the next chunk's JSON, already in the client's shape
	// (chat.completion.chunk or text_completion), or io.EOF after the
	// last one. An upstream failure mid-stream is returned as an error.
	// The slice is valid until the next call.
	Next() ([]byte, error)
	// Usage returns the usage known so far; complete after io.EOF.
	Usage() Usage
	// Close releases the upstream connection.
	Close() error
}

// Awaiter is a Stream that can wait for the upstream's next bytes apart
// from Next: when Next would wait on the upstream, Await waits for its
// next read, which Next then finds done, or for its error, which Next
// returns. A read may bring only part of an event: Next then reads on,
// and may wait again. A caller that waits through Await waits in a
// shallower frame than Next's, and the stack that a goroutine keeps
// while a stream idles is what its frames hold then (issue 18).
type Awaiter interface {
	Await()
}

// Provider is a configured upstream. What it can do is found by type
// assertion on the interfaces below.
type Provider interface {
	// Name is the configured name, e.g. "openai" or "openai-org2".
	Name() string
	// Type is the provider type, e.g. "openai" or "together".
	Type() string
}

// Chatter answers chat completions.
type Chatter interface {
	Chat(ctx context.Context, r *Request) (*Response, error)
}

// Streamer streams chat completions.
type Streamer interface {
	ChatStream(ctx context.Context, r *Request) (Stream, error)
}

// Completer answers legacy completions natively (instruct models).
type Completer interface {
	Complete(ctx context.Context, r *Request) (*Response, error)
	CompleteStream(ctx context.Context, r *Request) (Stream, error)
}

// Prober checks an upstream's base URL and credentials with a request
// that costs nothing (its models list); the error is a *Error as a call's
// would be, KindNoEndpoint when the base URL is wrong.
type Prober interface {
	Probe(ctx context.Context) error
}

// Embedder answers embeddings.
type Embedder interface {
	Embed(ctx context.Context, r *Request) (*Response, error)
}

// Forwarder serves an inbound API that is the upstream's own (Anthropic's
// Messages, OpenAI's Responses) natively: the client's body goes upstream
// with only the model edited in place, and the answer comes back in that
// API's shape — a whole JSON body, or a stream whose Next returns each
// event's data JSON, whose "type" names the event.
type Forwarder interface {
	// Forwards reports whether the upstream serves e natively.
	Forwards(e Endpoint) bool
	Forward(ctx context.Context, r *Request) (*Response, error)
	ForwardStream(ctx context.Context, r *Request) (Stream, error)
}
