package app_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// chaosRequests is how many requests each chaos scenario sends: 200 in
// `go test ./...`, the 1,000 of issue 15 with SWITCHYARD_CHAOS=full
// (.ci/run).
func chaosRequests() int {
	if os.Getenv("SWITCHYARD_CHAOS") == "full" {
		return 1000
	}
	return 200
}

// chaosConcurrency is how many clients send a scenario's requests at once.
const chaosConcurrency = 8

// outcome is one request as its client saw it.
type outcome struct {
	stream     bool
	status     int
	model      string // x-switchyard-model
	bodyModel  string // the body's (each chunk's) "model"
	deployment string // x-switchyard-deployment
	latency    time.Duration
	// refused is a JSON error answer, cut a stream that ended with an
	// error event: the errors a client sees.
	refused, cut bool
	// invalid says why the answer is neither a valid completion nor a
	// valid error: never acceptable.
	invalid string
}

func (o outcome) failed() bool { return o.refused || o.cut || o.invalid != "" }

// send sends one chat request (streamed or not) and checks the answer's
// shape. It may run on any goroutine: it reports through the outcome.
func send(client *http.Client, url, key, model string, stream bool) outcome {
	o := outcome{stream: stream}
	req, _ := http.NewRequest("POST", url+"/v1/chat/completions", strings.NewReader(chatBody(model, "hello chaos", stream)))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		o.invalid = err.Error()
		return o
	}
	defer resp.Body.Close()
	o.status, o.model, o.deployment = resp.StatusCode, resp.Header.Get("X-Switchyard-Model"), resp.Header.Get("X-Switchyard-Deployment")
	switch {
	case resp.StatusCode != http.StatusOK:
		o.refused = true
		o.invalid = checkErrorBody(resp.Body)
	case stream:
		o.bodyModel, o.cut, o.invalid = readChunks(resp.Body)
	default:
		o.bodyModel, o.invalid = readCompletion(resp.Body)
	}
	o.latency = time.Since(start)
	if o.invalid == "" && !o.refused && !o.cut && o.bodyModel != o.model {
		o.invalid = fmt.Sprintf("body names model %q, x-switchyard-model %q", o.bodyModel, o.model)
	}
	return o
}

// checkErrorBody says what is wrong with an OpenAI error body, or "".
func checkErrorBody(r io.Reader) string {
	var e struct {
		Error struct{ Message, Type string }
	}
	raw, _ := io.ReadAll(r)
	if json.Unmarshal(raw, &e) != nil || e.Error.Message == "" || e.Error.Type == "" {
		return "error answer not in OpenAI's shape: " + string(raw)
	}
	return ""
}

// readCompletion reads a chat.completion and returns its model.
func readCompletion(r io.Reader) (model, invalid string) {
	var c struct {
		Object, Model string
		Choices       []struct{ Message struct{ Content string } }
		Usage         struct {
			TotalTokens int `json:"total_tokens"`
		}
	}
	raw, _ := io.ReadAll(r)
	if json.Unmarshal(raw, &c) != nil || c.Object != "chat.completion" || len(c.Choices) != 1 ||
		c.Choices[0].Message.Content == "" || c.Usage.TotalTokens == 0 {
		return "", "not a chat.completion: " + string(raw)
	}
	return c.Model, ""
}

// readChunks reads a chat stream: chat.completion.chunk events of one
// model, then [DONE], or then an error event (cut) and nothing more.
func readChunks(r io.Reader) (model string, cut bool, invalid string) {
	sc := bufio.NewScanner(r)
	events, done := 0, false
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		switch {
		case !ok:
			continue
		case done || cut:
			return model, cut, "an event after the stream's end: " + data
		case data == "[DONE]":
			done = true
			continue
		}
		var c struct {
			Object, Model string
			Error         *struct{ Message, Type string }
		}
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			return model, cut, "invalid event: " + data
		}
		if c.Error != nil {
			if c.Error.Message == "" || events == 0 {
				return model, false, "error event without a message, or before any chunk: " + data
			}
			cut = true
			continue
		}
		if c.Object != "chat.completion.chunk" || model != "" && c.Model != model {
			return model, cut, "not a chunk of model " + model + ": " + data
		}
		model = c.Model
		events++
	}
	if !done && !cut {
		return model, false, fmt.Sprintf("stream ended after %d chunks without [DONE] or an error event (%v)", events, sc.Err())
	}
	return model, cut, ""
}

// tally is what a scenario's clients saw.
type tally []outcome

// drive sends n requests for model, chat and stream in turn, from
// chaosConcurrency clients, to the replicas in turn.
func drive(client *http.Client, urls []string, key, model string, n int) tally {
	out := make(tally, n)
	var wg sync.WaitGroup
	next := make(chan int)
	for range chaosConcurrency {
		wg.Go(func() {
			for i := range next {
				out[i] = send(client, urls[i%len(urls)], key, model, i%2 == 1)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

func (tl tally) count(f func(outcome) bool) int {
	n := 0
	for _, o := range tl {
		if f(o) {
			n++
		}
	}
	return n
}

func (tl tally) errors() int { return tl.count(outcome.failed) }

// latency returns the q-quantile (0 to 1) of the requests' latencies.
func (tl tally) latency(q float64) time.Duration {
	ls := make([]time.Duration, len(tl))
	for i, o := range tl {
		ls[i] = o.latency
	}
	slices.Sort(ls)
	return ls[min(len(ls)-1, int(q*float64(len(ls))))]
}

// checkValid fails t for every answer that was neither valid nor a valid
// error (the first few named).
func (tl tally) checkValid(t *testing.T) {
	t.Helper()
	bad := 0
	for i, o := range tl {
		if o.invalid != "" {
			if bad++; bad <= 5 {
				t.Errorf("request %d (stream %v, status %d): %s", i, o.stream, o.status, o.invalid)
			}
		}
	}
	if bad > 5 {
		t.Errorf("%d invalid answers in all", bad)
	}
}

// report logs the scenario's figures for the closing note of issue 15.
func (tl tally) report(t *testing.T, calls int64) {
	t.Helper()
	n := len(tl)
	t.Logf("%d requests, %d errors (%.2f%%: %d refused, %d streams cut), %d upstream calls (%.3f per request), p50 %v, p99 %v",
		n, tl.errors(), 100*float64(tl.errors())/float64(n), tl.count(func(o outcome) bool { return o.refused }),
		tl.count(func(o outcome) bool { return o.cut }), calls, float64(calls)/float64(n),
		tl.latency(0.5).Round(100*time.Microsecond), tl.latency(0.99).Round(100*time.Microsecond))
}
