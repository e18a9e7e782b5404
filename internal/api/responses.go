package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/switchyard-gw/switchyard/internal/gateway"
	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/responses"
)

// createResponse serves POST /v1/responses: the request continues its
// previous_response_id's stored context, goes to the gateway natively
// (a self-contained body) or as its chat translation, and its answer is
// stored when the client asked for store (the default).
func (h *Handler) createResponse(w http.ResponseWriter, r *http.Request) {
	aw := &responseAnswer{}
	h.serveModel(w, r, func(body []byte) (*gateway.Request, *Error) {
		req, turns, e := h.parseResponse(r.Context(), body)
		if e != nil {
			return nil, e
		}
		native, err := nativeResponseBody(body, turns)
		if err != nil {
			return nil, badRequest("", "invalid_json", "We could not parse the JSON body of your request.")
		}
		now := time.Now()
		gr := &gateway.Request{Endpoint: provider.EndpointResponses, Model: req.Model, Stream: req.Stream, Body: native}
		chat, err := req.Chat()
		var fe *responses.FieldError
		switch {
		case errors.As(err, &fe) && fe.NativeOnly:
			// Only OpenAI's own Responses API serves it: other models'
			// upstreams refuse it, naming the field.
			gr.ChatErr = &gateway.ErrUnsupported{Param: fe.Param, Message: fe.Message, Code: fe.Code}
		case err != nil:
			return &gateway.Request{Model: req.Model}, fieldError(err)
		default:
			gr.ChatBody, gr.Translator = chat, req.NewTranslator(newResponseID(), now.Unix())
		}
		aw.prepare(r.Context(), req.PreviousResponseID, req.Store, now, h.opt.ResponseRetention, turns)
		return gr, nil
	}, aw)
}

// responseInputTokens serves POST /v1/responses/input_tokens: the tokens
// the input of a create request's body would take, its
// previous_response_id's context included.
func (h *Handler) responseInputTokens(w http.ResponseWriter, r *http.Request) {
	body, buf, e := h.readBody(w, r)
	if e != nil {
		WriteError(w, e)
		return
	}
	defer buf.release()
	req, _, e := h.parseResponse(r.Context(), body)
	if e != nil {
		WriteError(w, e)
		return
	}
	writeJSON(w, http.StatusOK, struct {
		Object      string `json:"object"`
		InputTokens int    `json:"input_tokens"`
	}{"response.input_tokens", req.CountInputTokens()})
}

// parseResponse validates a create request's body and loads the context
// its previous_response_id continues. turns are every item before the
// response: the continued chain's, then the request's input.
func (h *Handler) parseResponse(ctx context.Context, body []byte) (req *responses.Request, turns []json.RawMessage, e *Error) {
	req, err := responses.Parse(body)
	if err != nil {
		return nil, nil, fieldError(err)
	}
	var history []json.RawMessage
	if id := req.PreviousResponseID; id != "" {
		history, err = h.history(ctx, id)
		if errors.Is(err, ErrResponseNotFound) {
			return nil, nil, badRequest("previous_response_id", "previous_response_not_found",
				fmt.Sprintf("Previous response with id '%s' not found.", id))
		}
		if err != nil {
			h.opt.Log.Error("response store", "previous_response_id", id, "err", err)
			return nil, nil, storeUnavailable()
		}
		req.SetHistory(history)
	}
	return req, append(history, req.InputItems()...), nil
}

// history returns the caller's stored response id's whole context: its
// input items (its chain's, flattened) and its output items.
func (h *Handler) history(ctx context.Context, id string) ([]json.RawMessage, error) {
	sr, err := h.loadResponse(ctx, id)
	if err != nil {
		return nil, err
	}
	in, err := items(sr.InputItems)
	if err != nil {
		return nil, err
	}
	out, err := items(sr.OutputItems)
	if err != nil {
		return nil, err
	}
	return append(in, out...), nil
}

// fieldError is the 400 of a request package responses refused.
func fieldError(err error) *Error {
	var fe *responses.FieldError
	if errors.As(err, &fe) {
		return badRequest(fe.Param, fe.Code, fe.Message)
	}
	return badRequest("", "", err.Error())
}

// failedEvents are the events that end a response stream that failed
// after it started.
func failedEvents(lastSeq int, created []byte, e *Error) [][]byte {
	code := "server_error"
	if e.Status == http.StatusTooManyRequests {
		code = "rate_limit_exceeded"
	}
	return responses.FailedEvents(lastSeq, created, code, e.Message)
}

// newResponseID returns "resp_" and 48 random hex digits.
func newResponseID() string {
	var b [24]byte
	rand.Read(b[:])
	return "resp_" + hex.EncodeToString(b[:])
}

// nativeResponseBody is the body an upstream serving the Responses API
// natively gets: the client's, made self-contained. The continued
// context goes in input instead of previous_response_id (the upstream
// has none of the gateway's stored responses), store is off (the
// gateway stores), and reasoning.encrypted_content is included so that
// reasoning items survive into the next turn without upstream state.
func nativeResponseBody(body []byte, turns []json.RawMessage) ([]byte, error) {
	input, err := itemsJSON(turns)
	if err != nil {
		return nil, fmt.Errorf("native body: input: %w", err)
	}
	b, err := sjson.DeleteBytes(body, "previous_response_id")
	if err == nil {
		b, err = sjson.SetRawBytes(b, "input", input)
	}
	if err == nil {
		b, err = sjson.SetBytes(b, "store", false)
	}
	if err == nil {
		b, err = withInclude(b, "reasoning.encrypted_content")
	}
	if err != nil {
		return nil, fmt.Errorf("native body: %w", err)
	}
	return b, nil
}

// withInclude adds value to b's include list unless it is there.
func withInclude(b []byte, value string) ([]byte, error) {
	inc := gjson.GetBytes(b, "include")
	if !inc.IsArray() {
		return sjson.SetBytes(b, "include", []string{value})
	}
	for _, v := range inc.Array() {
		if v.Str == value {
			return b, nil
		}
	}
	return sjson.SetBytes(b, "include.-1", value)
}

// itemsJSON encodes items as a JSON array ("[]" when there are none).
func itemsJSON(items []json.RawMessage) ([]byte, error) {
	if len(items) == 0 {
		return []byte("[]"), nil
	}
	return json.Marshal(items)
}
