package api

import (
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
	"testing"
)

// TestBodyClosedKeepsConnection: readBody closes a body it read to its
// end, so that net/http has nothing left to discard; the client's
// connection must still be kept for its next request, for bodies of
// declared length and chunked ones.
func TestBodyClosedKeepsConnection(t *testing.T) {
	ts := newServer(t, Options{}, nil)
	client := ts.Client()
	body := `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Hello"}],"stream":true}`
	for i, chunked := range []bool{false, false, true, true} {
		var r io.Reader = strings.NewReader(body)
		if chunked {
			r = io.MultiReader(r) // no length known: sent chunked
		}
		req, _ := http.NewRequest(http.MethodPost, ts.URL+"/v1/chat/completions", r)
		req.Header.Set("Authorization", "Bearer "+testKey)
		req.Header.Set("Content-Type", "application/json")
		reused := false
		req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
			GotConn: func(info httptrace.GotConnInfo) { reused = info.Reused },
		}))
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound { // no gateway: the model is not found
			t.Fatalf("request %d: status %d, want 404", i, resp.StatusCode)
		}
		if i > 0 && !reused {
			t.Errorf("request %d (chunked %v) opened a new connection; the last one was not kept", i, chunked)
		}
	}
}
