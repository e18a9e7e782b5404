package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// warmRequests is how many requests warm a target up before its first
// round of a cell, not counted: enough to open every connection and to
// warm the process's caches and pools after the other targets had the
// machine, few enough to cost a small part of a round.
const warmRequests = 256

// cell is one block of rows of a table: every target at one concurrency,
// plain or streamed, measured in rounds of d/rounds each.
type cell struct {
	conc, rounds, promptBytes int
	stream                    bool
	d                         time.Duration // the whole cell's duration per target
}

// tally is one target's measurement over a cell: its req/s in each round,
// the latencies (and times to first byte) of all the rounds' requests,
// sorted, the requests answered, warm-up included, and the usage-record
// check's cell for the table.
type tally struct {
	rps         []float64
	lats, ttfbs []time.Duration
	answered    int64
	records     string
}

func (c cell) kind() string { return map[bool]string{false: "chat", true: "stream"}[c.stream] }

// measure runs the cell: each round runs every target in turn, in the
// order roundOrder gives, a target warmed up just before its first round.
// It then checks that each metering target recorded one usage record a
// request answered over the whole cell, and, with -profile, merges each
// profiled target's round profiles into one a profile kind.
func (c cell) measure(targets []target) ([]tally, error) {
	tallies := make([]tally, len(targets))
	before := make([]int64, len(targets))
	clients := make([]*http.Client, len(targets))
	for i, t := range targets {
		n, err := countRecords(t.db, c.stream)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.name, err)
		}
		before[i] = n
		clients[i] = &http.Client{Transport: &http.Transport{MaxIdleConns: c.conc * 2, MaxIdleConnsPerHost: c.conc * 2}}
		defer clients[i].CloseIdleConnections()
	}
	warmed := make([]bool, len(targets))
	for r := range c.rounds {
		for _, i := range roundOrder(len(targets), r) {
			t := targets[i]
			if !warmed[i] {
				n, err := c.warm(clients[i], t)
				if err != nil {
					return nil, fmt.Errorf("%s: warm-up: %w", t.name, err)
				}
				tallies[i].answered += n
				warmed[i] = true
			}
			if err := c.round(clients[i], t, r, &tallies[i]); err != nil {
				return nil, fmt.Errorf("%s: %w", t.name, err)
			}
		}
	}
	for i, t := range targets {
		if err := c.mergeProfiles(t); err != nil {
			return nil, err
		}
		records, err := checkRecords(t.db, c.stream, before[i], tallies[i].answered)
		if err != nil {
			return nil, fmt.Errorf("%s, concurrency %d: %w", t.name, c.conc, err)
		}
		tallies[i].records = records
		slices.Sort(tallies[i].lats)
		slices.Sort(tallies[i].ttfbs)
	}
	return tallies, nil
}

// warm sends t warmRequests requests (at least one a client) from c.conc
// clients, or as many as fit in one round's time (a slow stream can take
// seconds), and returns how many were answered.
func (c cell) warm(client *http.Client, t target) (int64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), c.d/time.Duration(c.rounds))
	defer cancel()
	lats, _, err := c.drive(ctx, client, t, max(warmRequests, int64(c.conc)))
	return int64(len(lats)), err
}

// round runs t for one round, profiling it when it is profiled, and adds
// the round to tl.
func (c cell) round(client *http.Client, t target, r int, tl *tally) error {
	d := c.d / time.Duration(c.rounds)
	profiled := profileRun(t, c.roundProfile(t, r), d)
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	start := time.Now()
	lats, ttfbs, err := c.drive(ctx, client, t, 0)
	elapsed := time.Since(start)
	if err := profiled(); err != nil {
		return err
	}
	if err != nil {
		return err
	}
	tl.rps = append(tl.rps, float64(len(lats))/elapsed.Seconds())
	tl.lats, tl.ttfbs = append(tl.lats, lats...), append(tl.ttfbs, ttfbs...)
	tl.answered += int64(len(lats))
	return nil
}

// drive has c.conc clients send requests to t one after the other until
// ctx ends or, when limit > 0, limit requests have been sent, and returns
// the latencies and times to first byte of the requests, unsorted. Each
// request sent before ctx ends is read to its end, so a round lasts a
// little longer than ctx.
func (c cell) drive(ctx context.Context, client *http.Client, t target, limit int64) (lats, ttfbs []time.Duration, err error) {
	body := chatBody(t.model, c.stream, c.promptBytes)
	var sent atomic.Int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range c.conc {
		wg.Go(func() {
			var mine, myTTFB []time.Duration
			for ctx.Err() == nil && (limit <= 0 || sent.Add(1) <= limit) {
				lat, ttfb, e := once(client, t, body)
				if e != nil {
					mu.Lock()
					err = e
					mu.Unlock()
					return
				}
				mine, myTTFB = append(mine, lat), append(myTTFB, ttfb)
			}
			mu.Lock()
			lats, ttfbs = append(lats, mine...), append(ttfbs, myTTFB...)
			mu.Unlock()
		})
	}
	wg.Wait()
	return lats, ttfbs, err
}

// chatBody is the chat request the bench sends, with promptBytes of text
// (in units of 32 bytes of JSON string, with escapes and non-ASCII text)
// added to the user message.
func chatBody(model string, stream bool, promptBytes int) string {
	content := "Say hello to the benchmark" + strings.Repeat(` lorem \"ipsum\" sit ünïcödé`, promptBytes/32)
	if stream {
		return `{"model":"` + model + `","stream":true,"messages":[{"role":"user","content":"` + content + `"}]}`
	}
	return `{"model":"` + model + `","messages":[{"role":"user","content":"` + content + `"}]}`
}

// roundProfile is the path prefix of t's profiles of round r, in the
// directory "rounds" under the -profile directory (printProfiles reads
// only the merged ones, and run removes it at the end); "" when t is not
// profiled.
func (c cell) roundProfile(t target, r int) string {
	if t.prof == "" {
		return ""
	}
	return filepath.Join(filepath.Dir(t.prof), "rounds", fmt.Sprintf("%s-%s-c%d-r%d", filepath.Base(t.prof), c.kind(), c.conc, r))
}

// mergeProfiles merges t's round profiles of the cell into one a profile
// kind (go tool pprof adds the samples up), named as the profile of a
// whole measurement was before there were rounds, and removes them.
func (c cell) mergeProfiles(t target) error {
	if t.prof == "" || t.pprof == "" {
		return nil
	}
	for _, p := range profiles {
		var files []string
		for r := range c.rounds {
			files = append(files, c.roundProfile(t, r)+"."+p.name+".pprof")
		}
		out := fmt.Sprintf("%s-%s-c%d.%s.pprof", t.prof, c.kind(), c.conc, p.name)
		args := append([]string{"tool", "pprof", "-proto", "-output", out}, files...)
		if b, err := exec.Command("go", args...).CombinedOutput(); err != nil {
			return fmt.Errorf("merge profiles: go %v: %w\n%s", args, err, b)
		}
		for _, f := range files {
			os.Remove(f)
		}
	}
	return nil
}
