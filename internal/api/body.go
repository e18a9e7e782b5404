package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/switchyard-gw/switchyard/internal/jsonscan"
)

// bodyBuf is a finished request body's buffer, pooled with the reader
// that fills it.
type bodyBuf struct {
	b []byte
	// rd reads the body in hand; body is what it read.
	rd   bodyReader
	body []byte
}

// release gives the buffer's budget back and puts it back in the pool.
func (buf *bodyBuf) release() {
	buf.rd.give(int(buf.rd.held))
	if buf.body != nil && cap(buf.body) <= 1<<20 { // do not keep huge buffers alive
		buf.b = buf.body[:0]
	}
	buf.rd, buf.body = bodyReader{}, nil
	bufPool.Put(buf)
}

var bufPool = sync.Pool{New: func() any { return new(bodyBuf) }}

// scanPool holds the scanners that check bodies. A scanner goes back as
// soon as its body is checked: a streamed request holds its body for the
// stream's life, and the scanner's buffers would count in the memory per
// open stream (issue 18).
var scanPool = sync.Pool{New: func() any { return jsonscan.NewScanner(jsonscan.Options{FoldTopLevel: true}) }}

// readBody reads a JSON object request body into memory taken from the
// body budget, in buf. buf.release puts the buffer back and gives the
// budget back; call it when the body bytes are no longer used. (buf, not
// a release func: a method value would cost an allocation.)
func (h *Handler) readBody(w http.ResponseWriter, r *http.Request) (body []byte, buf *bodyBuf, apiErr *Error) {
	if !isJSON(r.Header.Get("Content-Type")) {
		return nil, nil, badRequest("", "invalid_content_type",
			"Request bodies must be JSON: set the header 'Content-Type: application/json'.")
	}
	buf = bufPool.Get().(*bodyBuf)
	buf.rd = bodyReader{budget: &h.bodies}
	body, err := buf.rd.read(buf.b[:0], r.Body, r.ContentLength)
	buf.body = body
	if err != nil {
		buf.release()
		return nil, nil, bodyError(err, h.bodies.max)
	}
	// The body is in; lift the read deadline so a long stream is not cut
	// by the server's ReadTimeout.
	http.NewResponseController(w).SetReadDeadline(time.Time{})
	// Closed, read to its end, it tells net/http there is nothing left
	// to discard: otherwise the response's first flush, deep in a
	// stream's first wait on its upstream, copies the rest of the body to
	// nowhere, and its frames double the stack a stream keeps (issue 18).
	r.Body.Close()
	scan := scanPool.Get().(*jsonscan.Scanner)
	e := checkJSONObject(scan, body)
	scanPool.Put(scan)
	if e != nil {
		buf.release()
		return nil, nil, e
	}
	return body, buf, nil
}

// bodyError is the client's answer to a body that could not be read.
func bodyError(err error, budget int64) *Error {
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return &Error{Status: http.StatusRequestEntityTooLarge, Type: "invalid_request_error",
			Code: "request_too_large", Message: fmt.Sprintf("The request body is too large: the limit is %d bytes.", tooBig.Limit)}
	case errors.Is(err, errBodiesBusy):
		e := serverError(http.StatusServiceUnavailable, fmt.Sprintf(
			"The gateway has too many large request bodies in flight (limit %d bytes). Please retry.", budget))
		e.RetryAfter = 1
		return e
	}
	return badRequest("", "", "The request body could not be read.")
}

func isJSON(ct string) bool {
	mt, _, _ := strings.Cut(ct, ";")
	return strings.EqualFold(strings.TrimSpace(mt), "application/json")
}

// checkJSONObject reports a body that is not exactly one JSON object, with
// the parser's position when it is not JSON at all, or that names a key
// twice in an object (issue 13: the gateway reads the first, an upstream
// the last). Keys of the top level that differ only in letter case count
// as the same, as upstreams written in Go match them so.
func checkJSONObject(scan *jsonscan.Scanner, body []byte) *Error {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) == 0 {
		return badRequest("", "invalid_json", "The request body is empty: expected a JSON object.")
	}
	err := scan.Check(body)
	if err == nil {
		return notObject(trimmed)
	}
	// dup escapes (errors.As): it is declared only for a failed check.
	var dup *jsonscan.DuplicateKeyError
	if !errors.As(err, &dup) {
		return invalidJSON(body)
	}
	if e := notObject(trimmed); e != nil {
		return e
	}
	return duplicateKey(dup)
}

// notObject refuses valid JSON (trimmed of leading white space) that is
// not an object.
func notObject(trimmed []byte) *Error {
	if trimmed[0] != '{' {
		return badRequest("", "invalid_json", "The request body must be a JSON object.")
	}
	return nil
}

// invalidJSON describes a body that is not JSON, with encoding/json's
// message and the position it gives.
func invalidJSON(body []byte) *Error {
	dec := json.NewDecoder(bytes.NewReader(body))
	var v json.RawMessage
	err := dec.Decode(&v)
	offset := dec.InputOffset()
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &syn):
		offset = syn.Offset
	case errors.Is(err, io.ErrUnexpectedEOF):
		offset = int64(len(body))
		err = errors.New("unexpected end of JSON input")
	case err == nil:
		err = errors.New("unexpected data after the top-level JSON value")
	}
	line, col := position(body, offset)
	return badRequest("", "invalid_json", fmt.Sprintf(
		"We could not parse the JSON body of your request: %v (line %d, column %d, byte offset %d).",
		err, line, col, offset))
}

func duplicateKey(dup *jsonscan.DuplicateKeyError) *Error {
	msg := fmt.Sprintf("Duplicate key '%s' in the JSON body: each key may appear once per object.", dup.Path)
	if dup.First != dup.Key {
		msg = fmt.Sprintf("Duplicate key '%s' in the JSON body: it differs from '%s' only in letter case, "+
			"which some upstreams ignore; each key may appear once per object.", dup.Path, dup.First)
	}
	return badRequest(dup.Path, "duplicate_key", msg)
}

// position converts a byte offset into a 1-based line and column.
func position(body []byte, offset int64) (line, col int) {
	if offset > int64(len(body)) {
		offset = int64(len(body))
	}
	before := body[:offset]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(offset) - (bytes.LastIndexByte(before, '\n') + 1)
	if col == 0 {
		col = 1
	}
	return line, col
}
