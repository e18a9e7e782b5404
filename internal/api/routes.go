package api

import (
	"net/http"
	"strings"

	"github.com/switchyard-gw/switchyard/internal/server"
)

// methodFn is the handler of one method of a path.
type methodFn struct {
	method string
	fn     http.HandlerFunc
}

// routeMethods registers each handler for its "METHOD path" and, for the
// path with any other method, a 405 in the error shape naming the
// allowed ones.
func (h *Handler) routeMethods(path string, fns ...methodFn) {
	var allow []string
	for _, m := range fns {
		h.handle(m.method+" "+path, m.fn)
		allow = append(allow, m.method)
		if m.method == http.MethodGet {
			allow = append(allow, http.MethodHead)
		}
	}
	allowed := strings.Join(allow, ", ")
	h.handle(path, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", allowed)
		WriteError(w, &Error{Status: http.StatusMethodNotAllowed, Type: "invalid_request_error", Code: "method_not_allowed",
			Message: "Method " + r.Method + " is not allowed for " + r.URL.Path + " (allowed: " + allowed + ")."})
	})
}

// handle registers fn for pattern, which names the request's route in
// its access record.
func (h *Handler) handle(pattern string, fn http.HandlerFunc) {
	h.mux.Handle(pattern, &routed{pattern: pattern, fn: fn})
}

// routed is a route's handler: a method rather than a closure, which the
// mux would call through http.HandlerFunc's frame, one more on the stack
// that a stream keeps while it waits (issue 18).
type routed struct {
	pattern string
	fn      http.HandlerFunc
}

func (rt *routed) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	server.RecordFrom(r.Context()).Route = rt.pattern
	rt.fn(w, r)
}
