package app_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/catalog"
	gw "github.com/switchyard-gw/switchyard/internal/gateway"
	prov "github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/provider/anthropic"
	"github.com/switchyard-gw/switchyard/internal/provider/openai"
	"github.com/switchyard-gw/switchyard/internal/route"
	fakeanthropic "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/anthropic"
	fakeopenai "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/openai"
)

// answerWriter records what the gateway answers.
type answerWriter struct {
	header http.Header
	err    error
	body   []byte
	events []string
}

func (w *answerWriter) Header() http.Header { return w.header }

func (w *answerWriter) Error(err error, end gw.Ender) {
	w.err = err
	end.End(gw.Outcome{Status: 500})
}

func (w *answerWriter) Response(resp *prov.Response, end gw.Ender) {
	w.body = resp.Body
	end.End(gw.Outcome{Status: 200})
}

func (w *answerWriter) Stream(st prov.Stream, end gw.Ender) {
	defer st.Close()
	for {
		b, err := st.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				w.err = err
			}
			break
		}
		w.events = append(w.events, string(b))
	}
	end.End(gw.Outcome{Status: 200})
}

// wrapping is a Translator that marks what went through it.
type wrapping struct{}

func (wrapping) Response(resp *prov.Response) (*prov.Response, error) {
	out := *resp
	out.Body = append([]byte(`{"translated":`), append(resp.Body, '}')...)
	return &out, nil
}

func (wrapping) Stream(st prov.Stream) prov.Stream { return st }

// forwardRig is a gateway over the builtin catalogue with a fake
// Anthropic and a fake OpenAI.
func forwardRig(t *testing.T) (*gw.Gateway, *fakeanthropic.Server, *fakeopenai.Server) {
	t.Helper()
	fa := fakeanthropic.Start(fakeanthropic.Options{})
	t.Cleanup(fa.Close)
	fo := fakeopenai.Start(fakeopenai.Options{})
	t.Cleanup(fo.Close)
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	tr := prov.NewTransport(0)
	t.Cleanup(tr.CloseIdleConnections)
	providers := []prov.Provider{
		anthropic.New(anthropic.Options{Name: "anthropic", BaseURL: fa.URL, APIKey: "test-upstream-key", Timeout: 10 * time.Second, Transport: tr}),
		openai.New(openai.Options{Name: "openai", Type: "openai", BaseURL: fo.URL, APIKey: "test-upstream-key", Timeout: 10 * time.Second, Transport: tr}),
	}
	return gw.New(route.New(cat, providers, nil), gw.Options{}), fa, fo
}

// TestForwardNative: a Messages request for a Claude model and a
// Responses request for an OpenAI model reach their upstreams as the
// client wrote them; a Messages request for an OpenAI model goes as its
// chat translation, whose answer the Translator turns back.
func TestForwardNative(t *testing.T) {
	g, fa, fo := forwardRig(t)
	messages := `{"model":"claude-sonnet-4-5","max_tokens":64,"messages":[{"role":"user","content":"Say hello."}]}`
	chat := `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Say hello."}]}`
	responses := `{"model":"gpt-4o-mini","input":"Say hello."}`
	tests := []struct {
		name      string
		req       *gw.Request
		upstream  func() (path string, body []byte)
		wantPath  string
		wantBody  string
		wantShape string // a member the answer has
	}{
		{"messages to anthropic", &gw.Request{Endpoint: prov.EndpointMessages, Model: "claude-sonnet-4-5", Body: []byte(messages),
			ChatBody: []byte(`{"model":"claude-sonnet-4-5","messages":[]}`), Translator: wrapping{},
			Header: http.Header{"Anthropic-Beta": {"claude-code-20250219"}}},
			func() (string, []byte) { r := fa.Last(); return r.Path, r.Body }, "/v1/messages", messages, "content.0.text"},
		{"responses to openai", &gw.Request{Endpoint: prov.EndpointResponses, Model: "gpt-4o-mini", Body: []byte(responses),
			ChatBody: []byte(chat), Translator: wrapping{}},
			func() (string, []byte) { r := fo.Last(); return r.Path, r.Body }, "/v1/responses", responses, "output.0.content.0.text"},
		{"messages to openai: translated", &gw.Request{Endpoint: prov.EndpointMessages, Model: "gpt-4o-mini", Body: []byte(messages),
			ChatBody: []byte(chat), Translator: wrapping{}},
			func() (string, []byte) { r := fo.Last(); return r.Path, r.Body }, "/v1/chat/completions", chat, "translated.choices.0.message.content"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &answerWriter{header: http.Header{}}
			g.Serve(context.Background(), tt.req, w)
			if w.err != nil {
				t.Fatal(w.err)
			}
			path, body := tt.upstream()
			if path != tt.wantPath || string(body) != tt.wantBody {
				t.Errorf("upstream got %s %s, want %s %s", path, body, tt.wantPath, tt.wantBody)
			}
			if !gjson.GetBytes(w.body, tt.wantShape).Exists() {
				t.Errorf("answer %s lacks %s", w.body, tt.wantShape)
			}
		})
	}
	if got := fa.Last().Header.Get("Anthropic-Beta"); got != "claude-code-20250219" {
		t.Errorf("anthropic-beta upstream = %q", got)
	}
}

// TestForwardNativeStream: the native stream's events reach the writer.
func TestForwardNativeStream(t *testing.T) {
	g, fa, _ := forwardRig(t)
	body := `{"model":"claude-sonnet-4-5","max_tokens":64,"stream":true,"messages":[{"role":"user","content":"Say hello."}]}`
	w := &answerWriter{header: http.Header{}}
	g.Serve(context.Background(), &gw.Request{Endpoint: prov.EndpointMessages, Model: "claude-sonnet-4-5", Stream: true,
		Body: []byte(body), ChatBody: []byte(`{}`), Translator: wrapping{}}, w)
	if w.err != nil {
		t.Fatal(w.err)
	}
	if string(fa.Last().Body) != body || len(w.events) < 5 ||
		gjson.Get(w.events[0], "type").Str != "message_start" || gjson.Get(w.events[len(w.events)-1], "type").Str != "message_stop" {
		t.Errorf("upstream body %s, events %q", fa.Last().Body, w.events)
	}
}
