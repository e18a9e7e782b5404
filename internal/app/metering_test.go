package app_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/config"
	"github.com/switchyard-gw/switchyard/internal/meter"
	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
	fakeopenai "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/openai"
	"github.com/switchyard-gw/switchyard/internal/usd"
)

// usage is the token counts of an OpenAI usage object.
type usage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	TotalTokens      int64 `json:"total_tokens"`
	PromptDetails    struct {
		CachedTokens int64 `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

func (u *usage) asMap() map[string]int64 {
	if u == nil {
		return nil
	}
	return map[string]int64{"prompt_tokens": u.PromptTokens, "completion_tokens": u.CompletionTokens, "total_tokens": u.TotalTokens,
		"cached_tokens": u.PromptDetails.CachedTokens}
}

// seen is what the client saw of one request: the status, and the usage
// the upstream reported (in the body or the stream's usage chunk).
type seen struct {
	status    int
	usage     map[string]int64
	stream    bool
	cancelled bool
}

// metered sends one request with its own X-Request-Id and reports what
// came back. cancelAfter > 0 reads that many stream events, then goes away.
func metered(t *testing.T, g *gateway, key, path, id, body string, cancelAfter int) seen {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", g.URL+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Request-Id", id)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	s := seen{status: resp.StatusCode, stream: strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")}
	if !s.stream {
		var b struct{ Usage *usage }
		json.NewDecoder(resp.Body).Decode(&b)
		s.usage = b.Usage.asMap()
		return s
	}
	sc := bufio.NewScanner(resp.Body)
	events := 0
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		events++
		var c struct{ Usage *usage }
		if json.Unmarshal([]byte(data), &c) == nil && c.Usage != nil {
			s.usage = c.Usage.asMap()
		}
		if cancelAfter > 0 && events >= cancelAfter {
			cancel()
			s.cancelled = true
			return s
		}
	}
	return s
}

// waitRows waits until the ledger holds n records of the account.
func waitRows(t *testing.T, st *store.Store, accountID string, n int64) {
	t.Helper()
	waitFor(t, 20*time.Second, fmt.Sprintf("%d records in the ledger", n), func() bool {
		got, err := st.CountUsage(context.Background(), accountID)
		return err == nil && got == n
	})
}

func price(t *testing.T, model string) (in, out int64) {
	t.Helper()
	m := catalogModel(t, model)
	return int64(m.InputPrice), int64(m.OutputPrice)
}

func catalogModel(t *testing.T, model string) *catalog.Model {
	t.Helper()
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	m, ok := cat.Lookup(model)
	if !ok {
		t.Fatalf("model %s not in the catalogue", model)
	}
	return m
}

// TestUsageMatchesUpstream sends a mix of requests and checks that every
// one has exactly one record whose tokens and cost are what the upstream
// reported, on every backend. The upstream reports 4 prompt tokens of
// each chat request as cached, which cost the catalogue's cache price.
func TestUsageMatchesUpstream(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		up := fakeopenai.Start(fakeopenai.Options{TokenDelay: 5 * time.Millisecond, CachedTokens: 4})
		t.Cleanup(up.Close)
		g := startWith(t, b.URL, map[string]string{"OPENAI_BASE_URL": up.URL, "OPENAI_API_KEY": "test-upstream-key"}, nil)
		key, keyID := g.newKey(t, "meter@example.com")
		acct, _ := g.Store.AccountByEmail(context.Background(), "meter@example.com")

		type sent struct {
			id, model, endpoint string
			seen                seen
		}
		var all []sent
		send := func(path, model, endpoint, body string, cancelAfter int) {
			id := fmt.Sprintf("req-mix-%03d", len(all))
			all = append(all, sent{id, model, endpoint, metered(t, g, key, path, id, body, cancelAfter)})
		}
		streamUsage := func(content string) string {
			return `{"model":"gpt-4o-mini","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"` + content + `"}]}`
		}
		for i := range 3 {
			send("/v1/chat/completions", "gpt-4o-mini", "chat.completions", chatBody("gpt-4o-mini", fmt.Sprintf("hello %d", i), false), 0)
			send("/v1/chat/completions", "gpt-4o-mini", "chat.completions", streamUsage(fmt.Sprintf("stream %d", i)), 0)
		}
		send("/v1/chat/completions", "gpt-4o-mini", "chat.completions", chatBody("gpt-4o-mini", "fake:error:500", false), 0)
		send("/v1/chat/completions", "gpt-4o-mini", "chat.completions", chatBody("gpt-4o-mini", "fake:error:429", true), 0)
		send("/v1/chat/completions", "gpt-4o-mini", "chat.completions", chatBody("gpt-4o-mini", "fake:midstream-error", true), 0)
		send("/v1/chat/completions", "gpt-4o-mini", "chat.completions", streamUsage("go away early"), 2)
		send("/v1/embeddings", "text-embedding-3-small", "embeddings", `{"model":"text-embedding-3-small","input":["one two","three"]}`, 0)
		send("/v1/completions", "gpt-3.5-turbo-instruct", "completions", `{"model":"gpt-3.5-turbo-instruct","prompt":"Say this"}`, 0)

		waitRows(t, g.Store, acct.ID, int64(len(all)))
		recs, err := g.Store.ListUsage(context.Background(), acct.ID, 1000)
		if err != nil {
			t.Fatal(err)
		}
		byReq := map[string]meter.Record{}
		for _, r := range recs {
			if _, dup := byReq[r.RequestID]; dup {
				t.Errorf("two records for %s", r.RequestID)
			}
			byReq[r.RequestID] = r
		}
		var total usd.Amount
		withCache := 0
		for _, s := range all {
			r, ok := byReq[s.id]
			if !ok {
				t.Errorf("%s: no record", s.id)
				continue
			}
			if r.CachedTokens == 4 && r.CachedPrice < r.InputPrice {
				withCache++
			}
			total += r.Cost
			checkRecord(t, s.id, s.model, s.endpoint, s.seen, r, keyID)
		}
		rows, err := g.Store.UsageSummary(context.Background(), store.UsageQuery{AccountID: acct.ID, By: "model"})
		if err != nil {
			t.Fatal(err)
		}
		var rolled usd.Amount
		var requests int64
		for _, row := range rows {
			rolled += row.Cost
			requests += row.Requests
		}
		if withCache < 6 {
			t.Errorf("%d records with 4 cached tokens at a cache price below the input price, want the 6 answered chats", withCache)
		}
		if rolled != total || requests != int64(len(all)) {
			t.Errorf("rollups: %d requests costing %v; records: %d costing %v", requests, rolled, len(all), total)
		}
	})
}

func checkRecord(t *testing.T, id, model, endpoint string, s seen, r meter.Record, keyID string) {
	t.Helper()
	m := catalogModel(t, model)
	in, out, cached := int64(m.InputPrice), int64(m.OutputPrice), int64(m.CachedPrice())
	if r.Model != model || r.Endpoint != endpoint || r.KeyID != keyID || r.Provider != "openai" || r.Latency <= 0 ||
		r.PriceVersion == "" || r.InputPrice != in || r.OutputPrice != out || r.CachedPrice != cached {
		t.Errorf("%s: record %+v", id, r)
	}
	wantStatus := s.status
	switch {
	case s.cancelled:
		wantStatus = 499
	case strings.Contains(id, "") && s.stream && s.usage == nil && s.status == 200:
		wantStatus = 502 // failed after the stream started
	}
	if r.Status != wantStatus || r.Cancelled != s.cancelled || r.Streamed != s.stream && s.status == 200 {
		t.Errorf("%s: status %d cancelled %v streamed %v; client saw %+v", id, r.Status, r.Cancelled, r.Streamed, s)
	}
	if r.Status >= 400 && r.ErrorType == "" && !r.Cancelled {
		t.Errorf("%s: failed record without an error type", id)
	}
	if s.usage != nil {
		if r.PromptTokens != s.usage["prompt_tokens"] || r.CompletionTokens != s.usage["completion_tokens"] ||
			r.TotalTokens != s.usage["total_tokens"] || r.CachedTokens != s.usage["cached_tokens"] || r.Estimated {
			t.Errorf("%s: tokens %d/%d/%d, %d cached (estimated %v), upstream reported %v", id,
				r.PromptTokens, r.CompletionTokens, r.TotalTokens, r.CachedTokens, r.Estimated, s.usage)
		}
	}
	wantCost := usd.Cost(r.PromptTokens-r.CachedTokens, in) + usd.Cost(r.CachedTokens, cached)
	if endpoint != "embeddings" {
		wantCost += usd.Cost(r.CompletionTokens, out)
	}
	if r.Cost != wantCost {
		t.Errorf("%s: cost %v, want %v", id, r.Cost, wantCost)
	}
	switch {
	case s.cancelled && (r.PromptTokens == 0 || !r.Estimated):
		t.Errorf("%s: a cancelled stream records its partial usage as an estimate: %+v", id, r)
	case r.Status >= 500 && !s.stream && r.Cost != 0:
		t.Errorf("%s: a failed call costs nothing: %v", id, r.Cost)
	case s.stream && s.status == 200 && !s.cancelled && r.TTFT <= 0:
		t.Errorf("%s: a stream without time to first token", id)
	}
}

// TestLongPromptPrices: a prompt over a model's long-context threshold
// pays the long-context prices for the whole request, and the record
// keeps them; one just under it pays the base prices.
func TestLongPromptPrices(t *testing.T) {
	up := fakeopenai.Start(fakeopenai.Options{CachedTokens: 1000})
	t.Cleanup(up.Close)
	g := startWith(t, storetest.Backends(t)[0].URL, map[string]string{"OPENAI_BASE_URL": up.URL, "OPENAI_API_KEY": "test-upstream-key"}, nil)
	key, _ := g.newKey(t, "long@example.com")
	acct, _ := g.Store.AccountByEmail(context.Background(), "long@example.com")
	m := catalogModel(t, "gpt-5.4")
	// The fake counts a message's words plus 3.
	words := func(n int) string { return strings.TrimSpace(strings.Repeat("w ", n)) }
	short := metered(t, g, key, "/v1/chat/completions", "req-short", chatBody("gpt-5.4", words(m.LongContext.Above-3), false), 0)
	long := metered(t, g, key, "/v1/chat/completions", "req-long", chatBody("gpt-5.4", words(m.LongContext.Above-2), false), 0)
	if short.usage["prompt_tokens"] != int64(m.LongContext.Above) || long.usage["prompt_tokens"] != int64(m.LongContext.Above)+1 {
		t.Fatalf("prompt tokens %v and %v, want %d and one more", short.usage, long.usage, m.LongContext.Above)
	}
	waitRows(t, g.Store, acct.ID, 2)
	recs, _ := g.Store.ListUsage(context.Background(), acct.ID, 10)
	for _, r := range recs {
		want := m.PricesFor(0)
		if r.RequestID == "req-long" {
			want = catalog.Prices{Input: m.LongContext.InputPrice, Cached: m.LongContext.CachedInputPrice, Output: m.LongContext.OutputPrice}
		}
		got := catalog.Prices{Input: catalog.Price(r.InputPrice), Cached: catalog.Price(r.CachedPrice), Output: catalog.Price(r.OutputPrice)}
		wantCost := usd.Cost(r.PromptTokens-1000, int64(want.Input)) + usd.Cost(1000, int64(want.Cached)) + usd.Cost(r.CompletionTokens, int64(want.Output))
		if got != want || r.CachedTokens != 1000 || r.Cost != wantCost {
			t.Errorf("%s: prices %+v, cost %v, %d cached; want %+v, %v", r.RequestID, got, r.Cost, r.CachedTokens, want, wantCost)
		}
	}
}

// TestBudgetStopsTraffic: once the month's spend reaches the account's
// limit, requests get the spec's 429 until the limit is raised.
func TestBudgetStopsTraffic(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		testBudget(t, b.URL, nil)
	})
}

func testBudget(t *testing.T, dbURL string, env map[string]string) {
	up := fakeopenai.Start(fakeopenai.Options{})
	t.Cleanup(up.Close)
	if env == nil {
		env = map[string]string{}
	}
	env["OPENAI_BASE_URL"], env["OPENAI_API_KEY"] = up.URL, "test-upstream-key"
	g := startWith(t, dbURL, env, nil)
	key, _ := g.newKey(t, "budget@example.com")
	ctx := context.Background()
	acct, _ := g.Store.AccountByEmail(ctx, "budget@example.com")
	in, out := price(t, "gpt-4o")
	// About three requests' worth: each costs prompt×in + completion×out.
	r := metered(t, g, key, "/v1/chat/completions", "req-probe", chatBody("gpt-4o", "hello", false), 0)
	perReq := usd.Cost(r.usage["prompt_tokens"], in) + usd.Cost(r.usage["completion_tokens"], out)
	limit := 3 * perReq
	setBudget(t, g, acct.ID, limit)

	hdr := map[string]string{"Authorization": "Bearer " + key, "Content-Type": "application/json"}
	var refused *http.Response
	var body errorBody
	var raw string
	sent := 0
	waitFor(t, 5*time.Second, "the budget stops traffic", func() bool {
		resp, eb, rw := do(t, "POST", g.URL+"/v1/chat/completions", hdr, chatBody("gpt-4o", "hello", false))
		sent++
		refused, body, raw = resp, eb, rw
		return resp.StatusCode == 429
	})
	if sent < 3 {
		t.Errorf("refused after %d requests, below the limit", sent)
	}
	if _, hasCode := body.Error["code"]; hasCode || body.Error["type"] != "rate_limit_error" || body.Error["param"] != nil ||
		!strings.Contains(body.Error["message"].(string), "account's monthly spend limit") {
		t.Errorf("429 body %s", raw)
	}
	if refused.Header.Get("Retry-After") == "" {
		t.Error("no Retry-After on the budget 429")
	}
	// Raising the limit lets requests through without a restart.
	setBudget(t, g, acct.ID, 1000*usd.USD)
	waitFor(t, 5*time.Second, "requests let through after raising the limit", func() bool {
		resp, _, _ := do(t, "POST", g.URL+"/v1/chat/completions", hdr, chatBody("gpt-4o", "hello", false))
		return resp.StatusCode == 200
	})
}

func setBudget(t *testing.T, g *gateway, accountID string, limit usd.Amount) {
	t.Helper()
	if err := g.Store.SetLimits(context.Background(), store.LimitsUpdate{AccountID: accountID, MonthlyBudget: &limit}); err != nil {
		t.Fatal(err)
	}
}

// TestKeyBudget: a key's own limit stops that key only.
func TestKeyBudget(t *testing.T) {
	up := fakeopenai.Start(fakeopenai.Options{})
	t.Cleanup(up.Close)
	g := startWith(t, storetest.SQLiteURL(t), map[string]string{"OPENAI_BASE_URL": up.URL, "OPENAI_API_KEY": "test-upstream-key"}, nil)
	capped, cappedID := g.newKey(t, "keys@example.com")
	free, _ := g.newKey(t, "keys@example.com")
	acct, _ := g.Store.AccountByEmail(context.Background(), "keys@example.com")
	tiny := usd.Micro
	if err := g.Store.SetLimits(context.Background(), store.LimitsUpdate{AccountID: acct.ID, KeyID: cappedID, MonthlyBudget: &tiny}); err != nil {
		t.Fatal(err)
	}
	// Nothing to wait for: the capped key has not been used, so the server
	// has not cached it and reads its limit on its first request.
	metered(t, g, capped, "/v1/chat/completions", "req-k1", chatBody("gpt-4o", "hello", false), 0)
	waitFor(t, 5*time.Second, "the capped key refused", func() bool {
		return metered(t, g, capped, "/v1/chat/completions", "req-k2", chatBody("gpt-4o", "hello", false), 0).status == 429
	})
	if s := metered(t, g, free, "/v1/chat/completions", "req-k3", chatBody("gpt-4o", "hello", false), 0); s.status != 200 {
		t.Errorf("the other key got %d", s.status)
	}
}

// TestMeteringUnderConcurrency: many clients at once, every request
// recorded once, rollups equal to the records.
func TestMeteringUnderConcurrency(t *testing.T) {
	up := fakeopenai.Start(fakeopenai.Options{})
	t.Cleanup(up.Close)
	g := startWith(t, storetest.SQLiteURL(t), map[string]string{"OPENAI_BASE_URL": up.URL, "OPENAI_API_KEY": "test-upstream-key"},
		func(c *config.Config) { c.Metering.BatchSize = 37 })
	key, _ := g.newKey(t, "many@example.com")
	acct, _ := g.Store.AccountByEmail(context.Background(), "many@example.com")
	var wg sync.WaitGroup
	for c := range 16 {
		wg.Go(func() {
			for i := range 25 {
				body := chatBody("gpt-4o-mini", "hi", i%2 == 0)
				req, _ := http.NewRequest("POST", g.URL+"/v1/chat/completions", strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+key)
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("X-Request-Id", "same-id-from-a-careless-client")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Error(c, err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
	wg.Wait()
	// A reused X-Request-Id does not merge records: the ledger's key is
	// the gateway's own record ID.
	waitRows(t, g.Store, acct.ID, 400)
}
