package gateway

import (
	"context"
	"errors"

	"github.com/tidwall/gjson"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/switchyard-gw/switchyard/internal/limits"
	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/server"
)

// Operation returns the GenAI operation of requests to e
// (gen_ai.operation.name): Messages and Responses are chat.
func Operation(e provider.Endpoint) string {
	switch e {
	case provider.EndpointCompletion:
		return "text_completion"
	case provider.EndpointEmbedding:
		return "embeddings"
	}
	return "chat"
}

// genAIProvider is the gen_ai.provider.name of a provider type: the
// semantic conventions' name where they have one, else the type.
func genAIProvider(typ string) string {
	if typ == "gemini" {
		return "gcp.gemini"
	}
	return typ // openai, anthropic, groq as the conventions spell them; together, fireworks, ... as is
}

// AttrAttempt numbers an upstream attempt span within its request, from 1.
const AttrAttempt = attribute.Key("switchyard.attempt")

// spans are a model request's trace: the server span it arrived with,
// and the tracer of the spans under it (attempts, limits, the meter's
// enqueue). Both are nil when the request is not traced (tracing off, or
// not sampled): then nothing is made and nothing allocated. Attributes
// carry names, counts and classes only: never a prompt, an answer or a
// key.
type spans struct {
	server trace.Span
	tracer trace.Tracer
}

// spansFor returns the spans of the request whose context is ctx.
func (g *Gateway) spansFor(ctx context.Context) spans {
	if g.opt.Tracer == nil {
		return spans{}
	}
	if sp := trace.SpanFromContext(ctx); sp.IsRecording() {
		return spans{server: sp, tracer: g.opt.Tracer}
	}
	return spans{}
}

// request notes what the request asks of the model: its output bound and
// temperature, when it gives them.
func (s spans) request(req *Request) {
	if s.server == nil {
		return
	}
	body := req.chatBody()
	r := gjson.GetManyBytes(body, "max_completion_tokens", "max_tokens", "temperature")
	if mt := r[0]; mt.Type == gjson.Number {
		s.server.SetAttributes(semconv.GenAIRequestMaxTokens(int(mt.Int())))
	} else if mt := r[1]; mt.Type == gjson.Number {
		s.server.SetAttributes(semconv.GenAIRequestMaxTokens(int(mt.Int())))
	}
	if t := r[2]; t.Type == gjson.Number {
		s.server.SetAttributes(semconv.GenAIRequestTemperature(t.Float()))
	}
}

// child is a span under the server span; its methods do nothing on the
// zero child, an untraced request's.
type child struct{ sp trace.Span }

// limits starts the span of the budget check and the rate-limit
// reservation, when the gateway has limits.
func (s spans) limits(ctx context.Context, g *Gateway) child {
	if s.server == nil || (g.opt.Budget == nil && g.opt.Rates == nil) {
		return child{}
	}
	_, sp := s.tracer.Start(ctx, "switchyard.limits")
	return child{sp}
}

// attempt starts the CLIENT span of attempt n at t (named, as the
// conventions name a model call, for its operation and the upstream's
// model ID) and returns the context the call carries it in, for the
// upstream's traceparent.
func (s spans) attempt(ctx context.Context, req *Request, t target, n int) (context.Context, child) {
	if s.server == nil {
		return ctx, child{}
	}
	op, prov := Operation(req.Endpoint), genAIProvider(t.dep.Provider.Type())
	s.server.SetAttributes(semconv.GenAIProviderNameKey.String(prov))
	ctx, sp := s.tracer.Start(ctx, op+" "+t.dep.UpstreamID, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(semconv.GenAIOperationNameKey.String(op), semconv.GenAIRequestModel(t.dep.UpstreamID),
			semconv.GenAIProviderNameKey.String(prov), server.AttrDeployment.String(t.dep.Key), AttrAttempt.Int(n)))
	return ctx, child{sp}
}

// meter starts the span of the usage record's enqueue.
func (s spans) meter() child {
	if s.server == nil {
		return child{}
	}
	_, sp := s.tracer.Start(trace.ContextWithSpan(context.Background(), s.server), "switchyard.meter.enqueue")
	return child{sp}
}

// answered notes the attempt's answer: its first chunk (or whole body)
// arrived now, from the model it names (body's "model", else fallback).
func (s spans) answered(c child, body []byte, fallback string) {
	if s.server == nil {
		return
	}
	c.sp.AddEvent("first_byte")
	c.sp.SetAttributes(semconv.HTTPResponseStatusCode(200))
	r := gjson.GetManyBytes(body, "model", "message.model", "response.model")
	m := fallback
	for _, v := range r {
		if v.Type == gjson.String && v.Str != "" {
			m = v.Str
			break
		}
	}
	s.server.SetAttributes(semconv.GenAIResponseModel(m))
	c.sp.SetAttributes(semconv.GenAIResponseModel(m))
}

// finish notes the request's usage on the server span.
func (s spans) finish(us provider.Usage) {
	if s.server == nil || us.PromptTokens+us.CompletionTokens == 0 {
		return
	}
	s.server.SetAttributes(semconv.GenAIUsageInputTokens(us.PromptTokens), semconv.GenAIUsageOutputTokens(us.CompletionTokens))
}

// end ends c; a failure gives it the class of err.
func (c child) end(ctx context.Context, err error) {
	c.fail(ctx, err)
	c.close()
}

// close ends c as it is.
func (c child) close() {
	if c.sp != nil {
		c.sp.End()
	}
}

// fail gives c the class of err, when there is one, and the status of an
// upstream's answer.
func (c child) fail(ctx context.Context, err error) {
	if c.sp == nil || err == nil {
		return
	}
	var pe *provider.Error
	if errors.As(err, &pe) && pe.Status != 0 {
		c.sp.SetAttributes(semconv.HTTPResponseStatusCode(pe.Status))
	}
	c.sp.SetAttributes(semconv.ErrorTypeKey.String(errorClass(ctx, err)))
	c.sp.SetStatus(codes.Error, "")
}

// errorClass names err for error.type: the class health counts it under,
// else what the client or the limits did.
func errorClass(ctx context.Context, err error) string {
	if v := classify(ctx, err); v.class != "" {
		return v.class
	}
	var pe *provider.Error
	var rl *RateLimited
	var ob *limits.OverBudget
	switch {
	case errors.As(err, &rl):
		return "rate_limited"
	case errors.As(err, &ob):
		return "over_budget"
	case errors.Is(err, ErrBudgetUnavailable), errors.Is(err, ErrRatesUnavailable):
		return "limits_unavailable"
	case ctx.Err() != nil || errors.As(err, &pe) && pe.Kind == provider.KindCanceled:
		return "canceled"
	case errors.As(err, &pe) && pe.Kind == provider.KindBadRequest:
		return "bad_request"
	case errors.As(err, &pe) && pe.Kind == provider.KindNotFound:
		return "not_found"
	}
	return "_OTHER"
}
