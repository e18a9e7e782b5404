package app_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/switchyard-gw/switchyard/internal/fakeupstream"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
)

// BenchmarkGatewayChat measures a whole request through the gateway (auth,
// validation, routing, the OpenAI adapter) against an in-process fake
// upstream; run it beside BenchmarkDirectChat for the baseline.
func BenchmarkGatewayChat(b *testing.B) {
	for _, stream := range []bool{false, true} {
		b.Run(map[bool]string{false: "plain", true: "stream"}[stream], func(b *testing.B) {
			up := fakeupstream.Start(fakeupstream.Options{})
			defer up.Close()
			g := startWith(b, storetestSQLite(b), map[string]string{"OPENAI_BASE_URL": up.URL, "OPENAI_API_KEY": "test-upstream-key"}, nil)
			key, _ := g.newKey(b, "bench@example.com")
			benchChat(b, g.URL+"/v1", key, stream)
		})
	}
}

// BenchmarkDirectChat is the baseline: the same requests straight at the
// fake upstream.
func BenchmarkDirectChat(b *testing.B) {
	for _, stream := range []bool{false, true} {
		b.Run(map[bool]string{false: "plain", true: "stream"}[stream], func(b *testing.B) {
			up := fakeupstream.Start(fakeupstream.Options{})
			defer up.Close()
			benchChat(b, up.URL, "test-upstream-key", stream)
		})
	}
}

func storetestSQLite(b *testing.B) string { return storetest.SQLiteURL(b) }

func benchChat(b *testing.B, base, key string, stream bool) {
	body := chatBody("gpt-4o-mini", "Say hello to the benchmark", stream)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req, _ := http.NewRequest("POST", base+"/chat/completions", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+key)
			req.Header.Set("Content-Type", "application/json")
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Fatalf("status %d", resp.StatusCode)
			}
		}
	})
}
