package app_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/config"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
)

// chunkEvent is one chat.completion.chunk event saying word.
func chunkEvent(word string) string {
	return `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini",` +
		`"choices":[{"index":0,"delta":{"content":"` + word + `"},"finish_reason":null}]}` + "\n\n"
}

// scripted is an OpenAI upstream that sends a stream's events in the
// writes script lists, each written and flushed at once; before each
// write after the first it waits for the client to have seen the last
// word of the previous one, up to a bound, so that a held event shows as
// a failure, not a hang (issue 18).
func scripted(t *testing.T, script [][]string, seen <-chan string) *httptest.Server {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		for i, words := range script {
			if i > 0 {
				awaitWord(t, seen, r.Context(), script[i-1][len(script[i-1])-1])
			}
			var b strings.Builder
			for _, word := range words {
				b.WriteString(chunkEvent(word))
			}
			io.WriteString(w, b.String())
			rc.Flush()
		}
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(up.Close)
	return up
}

// awaitWord waits for the client to have seen word.
func awaitWord(t *testing.T, seen <-chan string, ctx context.Context, word string) {
	timeout := time.After(10 * time.Second)
	for {
		select {
		case got := <-seen:
			if got == word {
				return
			}
		case <-timeout:
			t.Errorf("%q did not reach the client while the upstream waited", word)
			return
		case <-ctx.Done():
			return
		}
	}
}

// rawStream posts a chat stream of model on a connection of its own and
// returns the HTTP chunks of the answer's body as they came; the words
// their events say also go to seen, as they arrive.
func rawStream(t *testing.T, gwURL, key, model string, seen chan<- string) []string {
	t.Helper()
	u, _ := url.Parse(gwURL)
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	body := chatBody(model, "count", true)
	fmt.Fprintf(conn, "POST /v1/chat/completions HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n"+
		"Content-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", u.Host, key, len(body), body)
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || len(resp.TransferEncoding) == 0 {
		t.Fatalf("status %d, transfer encoding %v", resp.StatusCode, resp.TransferEncoding)
	}
	// ReadResponse hides the chunks: read them from br, which holds what
	// followed the headers.
	var chunks []string
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("chunk size: %v", err)
		}
		size, err := strconv.ParseInt(strings.TrimSpace(line), 16, 64)
		if err != nil {
			t.Fatalf("chunk size %q: %v", line, err)
		}
		if size == 0 {
			return chunks
		}
		b := make([]byte, size+2)
		if _, err := io.ReadFull(br, b); err != nil {
			t.Fatal(err)
		}
		chunk := string(b[:size])
		for _, word := range words(chunk) {
			select {
			case seen <- word:
			default: // nobody waits for it
			}
		}
		chunks = append(chunks, chunk)
	}
}

// words returns what the events of chunk say: their content, or [DONE].
func words(chunk string) []string {
	var out []string
	for _, ev := range strings.Split(chunk, "\n\n") {
		if _, rest, ok := strings.Cut(ev, `"content":"`); ok {
			word, _, _ := strings.Cut(rest, `"`)
			out = append(out, word)
		}
		if strings.Contains(ev, "[DONE]") {
			out = append(out, "[DONE]")
		}
	}
	return out
}

// Issue 18: the events of one upstream read reach the client in one
// flush, one HTTP chunk, and none waits in the gateway while the upstream
// is silent: the upstream sends nothing more until the client has them.
func TestStreamOneFlushPerUpstreamRead(t *testing.T) {
	seen := make(chan string, 64)
	up := scripted(t, [][]string{{"one"}, {"two", "three", "four"}, {"five"}}, seen)
	g := startWith(t, storetest.SQLiteURL(t), map[string]string{"OPENAI_BASE_URL": up.URL, "OPENAI_API_KEY": "k"}, nil)
	key, _ := g.newKey(t, "flush@example.com")
	var got []string
	for _, c := range rawStream(t, g.URL, key, "gpt-4o-mini", seen) {
		got = append(got, strings.Join(words(c), " "))
	}
	want := "two three four"
	if !strings.Contains(strings.Join(got, "|"), "|"+want+"|") {
		t.Errorf("HTTP chunks %q; want the events of one upstream read, %q, in one", got, want)
	}
}

// A stream that does not run the wait hook, the mock's, is flushed event
// by event: nothing tells the gateway when it waits. So is it when it
// answers after attempts at an upstream that did run the hook failed.
func TestMockStreamFlushesEachEvent(t *testing.T) {
	var attempts atomic.Int32
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		attempts.Add(1)
		io.Copy(io.Discard, r.Body)
		http.Error(w, `{"error":{"message":"down","type":"server_error"}}`, http.StatusInternalServerError)
	}))
	t.Cleanup(failing.Close)
	tests := []struct {
		name, model  string
		wantAttempts bool
	}{
		{"mock", "mock-chat", false},
		{"mock after failed upstream attempts", "gpt-4o-mini", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := startWith(t, storetest.SQLiteURL(t), map[string]string{"OPENAI_BASE_URL": failing.URL, "OPENAI_API_KEY": "k"},
				func(c *config.Config) {
					c.Dev = true
					c.Models.Add = []config.ModelEntry{{ID: "gpt-4o-mini", Fallbacks: []string{"mock-chat"}}}
				})
			key, _ := g.newKey(t, "mock@example.com")
			attempts.Store(0)
			chunks := rawStream(t, g.URL, key, tt.model, make(chan string))
			if got := attempts.Load() > 0; got != tt.wantAttempts {
				t.Errorf("upstream attempts: %v, want %v", got, tt.wantAttempts)
			}
			if len(chunks) < 3 {
				t.Fatalf("%d chunks: %q", len(chunks), chunks)
			}
			for _, c := range chunks {
				if n := strings.Count(c, "data: "); n != 1 {
					t.Errorf("an HTTP chunk with %d events: %q", n, c)
				}
			}
		})
	}
}

// A client that goes away while events are held ends the request as it
// did when each was flushed: recorded 499, cancelled, with its partial
// usage, and the upstream request cancelled.
func TestStreamClientGoneWhileHeld(t *testing.T) {
	cut := make(chan bool, 1) // whether the upstream request was cancelled
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		rc := http.NewResponseController(w)
		io.WriteString(w, chunkEvent("one"))
		rc.Flush()
		// Three events a write, until the gateway goes.
		stop := time.After(10 * time.Second)
		for {
			select {
			case <-r.Context().Done():
				cut <- true
				return
			case <-stop:
				cut <- false
				return
			case <-time.After(2 * time.Millisecond):
			}
			io.WriteString(w, chunkEvent("and")+chunkEvent("on")+chunkEvent("on"))
			rc.Flush()
		}
	}))
	t.Cleanup(up.Close)
	g := startWith(t, storetest.SQLiteURL(t), map[string]string{"OPENAI_BASE_URL": up.URL, "OPENAI_API_KEY": "k"}, nil)
	key, _ := g.newKey(t, "gone-held@example.com")
	acct, err := g.Store.AccountByEmail(context.Background(), "gone-held@example.com")
	if err != nil {
		t.Fatal(err)
	}
	s := metered(t, g, key, "/v1/chat/completions", "req-gone-held", chatBody("gpt-4o-mini", "go on", true), 5)
	if !s.cancelled {
		t.Fatalf("the client did not leave mid-stream: %+v", s)
	}
	if !<-cut {
		t.Error("the upstream request went on after the client left")
	}
	waitRows(t, g.Store, acct.ID, 1)
	recs, err := g.Store.ListUsage(context.Background(), acct.ID, 10)
	if err != nil {
		t.Fatal(err)
	}
	r := recs[0]
	if r.RequestID != "req-gone-held" || r.Status != 499 || !r.Cancelled || r.ErrorType != "" ||
		r.PromptTokens == 0 || r.CompletionTokens == 0 || !r.Estimated {
		t.Errorf("record %+v; want 499, cancelled, no error type, partial usage estimated", r)
	}
}
