package gemini

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/provider"
	fakegemini "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/gemini"
)

func TestUpstreamErrors(t *testing.T) {
	_, c := setup(t, fakegemini.Options{})
	for _, tt := range []struct {
		trigger    string
		kind       provider.Kind
		retryAfter time.Duration
	}{
		{"fake:badkey", provider.KindAuth, 0},
		{"fake:error:400", provider.KindBadRequest, 0},
		{"fake:error:403", provider.KindAuth, 0},
		{"fake:error:404", provider.KindNotFound, 0},
		{"fake:error:429", provider.KindRateLimit, 27 * time.Second},
		{"fake:error:500", provider.KindUnavailable, 0},
		{"fake:error:503", provider.KindOverloaded, 0},
		{"fake:error:504", provider.KindTimeout, 0},
	} {
		for _, stream := range []bool{false, true} {
			t.Run(tt.trigger+map[bool]string{true: "/stream"}[stream], func(t *testing.T) {
				r := request(flash, `{"messages":[{"role":"user","content":"`+tt.trigger+`"}]}`)
				var err error
				if stream {
					_, _, err = chunks(t, c, r)
				} else {
					_, err = c.Chat(t.Context(), r)
				}
				var pe *provider.Error
				if !errors.As(err, &pe) {
					t.Fatalf("error %v, want *provider.Error", err)
				}
				if pe.Kind != tt.kind || pe.RetryAfter != tt.retryAfter || pe.Message == "" {
					t.Errorf("kind %d retry %v message %q, want kind %d retry %v", pe.Kind, pe.RetryAfter, pe.Message, tt.kind, tt.retryAfter)
				}
			})
		}
	}
}

func TestWrongKeyAndModel(t *testing.T) {
	s, _ := setup(t, fakegemini.Options{})
	bad := New(Options{Name: "g", BaseURL: s.URL, APIKey: "wrong"})
	_, err := bad.Chat(t.Context(), request(flash, `{"messages":[{"role":"user","content":"x"}]}`))
	var pe *provider.Error
	if !errors.As(err, &pe) || pe.Kind != provider.KindAuth || pe.Code != "api_key_invalid" {
		t.Errorf("wrong key: %v, want KindAuth api_key_invalid", err)
	}
	good := New(Options{Name: "g", BaseURL: s.URL, APIKey: fakegemini.DefaultKey})
	_, err = good.Chat(t.Context(), request("gemini-9.9-pro", `{"messages":[{"role":"user","content":"x"}]}`))
	if !errors.As(err, &pe) || pe.Kind != provider.KindNotFound {
		t.Errorf("unknown model: %v, want KindNotFound", err)
	}
}

func TestBlocked(t *testing.T) {
	_, c := setup(t, fakegemini.Options{})
	got := chat(t, c, request(flash, `{"messages":[{"role":"user","content":"fake:blocked"}]}`))
	if got.Get("choices.0.finish_reason").Str != "content_filter" || got.Get("choices.0.message.content").Str != "" || got.Get("choices.0.message.refusal").Str == "" {
		t.Errorf("blocked answer: %s", got.Raw)
	}
}

func TestTimeoutAndCancel(t *testing.T) {
	s := fakegemini.Start(fakegemini.Options{})
	t.Cleanup(s.Close)
	c := New(Options{Name: "g", BaseURL: s.URL, APIKey: fakegemini.DefaultKey, Timeout: 100 * time.Millisecond})
	r := request(flash, `{"messages":[{"role":"user","content":"fake:hang"}]}`)
	var pe *provider.Error
	if _, err := c.Chat(t.Context(), r); !errors.As(err, &pe) || pe.Kind != provider.KindTimeout {
		t.Errorf("Chat: %v, want KindTimeout", err)
	}
	if _, err := c.ChatStream(t.Context(), r); !errors.As(err, &pe) || pe.Kind != provider.KindTimeout {
		t.Errorf("ChatStream: %v, want KindTimeout", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(50*time.Millisecond, cancel)
	c = New(Options{Name: "g", BaseURL: s.URL, APIKey: fakegemini.DefaultKey})
	if _, err := c.Chat(ctx, r); !errors.As(err, &pe) || pe.Kind != provider.KindCanceled {
		t.Errorf("cancelled: %v, want KindCanceled", err)
	}
}

// Only Gemini's own NOT_FOUND for a model ("models/x is not found") is an
// unknown model; another 404 or a 405 is the gateway's misconfiguration.
func TestWrongPath(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		want   provider.Kind
	}{
		{"model", 404, `{"error":{"code":404,"message":"models/gemini-x is not found for API version v1beta, or is not supported for generateContent.","status":"NOT_FOUND"}}`, provider.KindNotFound},
		{"html", 404, `<!DOCTYPE html><title>Error 404 (Not Found)!!1</title>`, provider.KindNoEndpoint},
		{"method", 405, ``, provider.KindNoEndpoint},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tt.status)
				w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			c := New(Options{Name: "g", BaseURL: srv.URL, APIKey: "k"})
			_, err := c.Chat(t.Context(), request(flash, `{"messages":[{"role":"user","content":"x"}]}`))
			var pe *provider.Error
			if !errors.As(err, &pe) || pe.Kind != tt.want || !strings.HasPrefix(pe.Path, "/v1beta/models/") {
				t.Errorf("err %v (%+v), want kind %d and the path", err, pe, tt.want)
			}
		})
	}
}
