package bareproxy

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// TestNew: the proxy sends a request to the upstream's host with the
// request's own path (not the upstream URL's), its headers and its whole
// body, and hands back the answer.
func TestNew(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		io.WriteString(w, r.Method+" "+r.URL.Path+" "+r.Header.Get("Authorization")+" "+string(b))
	}))
	defer up.Close()
	u, err := url.Parse(up.URL + "/v1")
	if err != nil {
		t.Fatal(err)
	}
	rp := New(u)
	defer rp.Transport.(*http.Transport).CloseIdleConnections()
	proxy := httptest.NewServer(rp)
	defer proxy.Close()
	req, _ := http.NewRequest("POST", proxy.URL+"/v1/chat/completions", strings.NewReader(`{"model":"m"}`))
	req.Header.Set("Authorization", "Bearer k")
	resp, err := proxy.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	if want := `POST /v1/chat/completions Bearer k {"model":"m"}`; string(got) != want {
		t.Errorf("upstream saw %q, want %q", got, want)
	}
}
