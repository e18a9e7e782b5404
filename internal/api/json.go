package api

import (
	"encoding/json"
	"net/http"
)

// writeJSON writes v as a JSON response with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		WriteError(w, serverError(http.StatusInternalServerError, "The server had an error while processing your request."))
		return
	}
	writeJSONBytes(w, status, append(b, '\n'))
}

// writeJSONBytes writes b, already JSON, as the response with status.
func writeJSONBytes(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}
