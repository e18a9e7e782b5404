package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	_ "modernc.org/sqlite" // reads the gateway's usage records

	fakeopenai "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/openai"
)

// slowTarget is a proxy under the slow-streams measurement; db is the
// gateway's SQLite database, "" for the bare proxy.
type slowTarget struct {
	name, base, key, db string
	pid                 int
}

// runSlow opens o.slowStreams concurrent slow streams through the bare
// proxy and through Switchyard (and the base build when asked), one target
// after the other, and prints the resident memory each process holds per
// open stream.
func runSlow(o options) error {
	n := o.slowStreams
	// Each proxy holds 2n sockets (client and upstream sides).
	if err := raiseNoFile(uint64(2*n + 256)); err != nil {
		return err
	}
	delay := o.tokenDelay
	if delay == 0 {
		delay = time.Second
	}
	dir, err := os.MkdirTemp("", "switchyard-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	self, err := os.Executable()
	if err != nil {
		return err
	}
	// The upstream runs in a process of its own, so that this one holds
	// only the client side of the streams.
	upCmd, upURL, err := startChild(self, "upstream", delay.String(), strconv.Itoa(o.words))
	if err != nil {
		return err
	}
	defer stop(upCmd)
	up := struct{ URL string }{upURL}
	proxy, proxyURL, err := startProxy(self, up.URL)
	if err != nil {
		return err
	}
	defer stop(proxy)
	targets := []slowTarget{{"httputil.ReverseProxy", proxyURL + "/v1", "test-upstream-key", "", proxy.Process.Pid}}
	srcs := [][2]string{{"switchyard", "."}}
	if o.base != "" {
		srcs = append(srcs, [2]string{"switchyard, base", o.base})
	}
	for i, s := range srcs {
		name := fmt.Sprintf("gw%d", i)
		cmd, url, key, err := startSwitchyard(dir, name, s[1], up.URL, "")
		if err != nil {
			return err
		}
		defer stop(cmd)
		targets = append(targets, slowTarget{s[0], url + "/v1", key, filepath.Join(dir, name+".db"), cmd.Process.Pid})
	}
	fmt.Printf("# go run ./bench -slow-streams %d -token-delay %s -words %d -base %q\n\n", n, delay, o.words, o.base)
	fmt.Printf("upstream: fake OpenAI, %d words a stream (one chunk each, plus role, finish and usage chunks), %s between chunks; cores: %d\n\n",
		o.words, delay, runtimeCPUs())
	fmt.Println("| target | streams | completed | usage records | RSS idle | RSS with all open | per open stream | peak RSS (VmHWM) | open phase |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, t := range targets {
		if err := slowOne(t, n); err != nil {
			return fmt.Errorf("%s: %w", t.name, err)
		}
	}
	return nil
}

// slowOne measures one target and prints its table row.
func slowOne(t slowTarget, n int) error {
	body := `{"model":"gpt-5.4-mini","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"Say hello"}]}`
	tr := &http.Transport{MaxConnsPerHost: 0, MaxIdleConns: n, MaxIdleConnsPerHost: n, DisableCompression: true}
	client := &http.Client{Transport: tr}
	defer tr.CloseIdleConnections()
	// One warm-up stream, then let the process settle before reading idle RSS.
	if err := slowStream(client, t, body, func() {}); err != nil {
		return err
	}
	before, err := waitRecords(t.db, true, 1) // the warm-up stream's record
	if err != nil {
		return err
	}
	time.Sleep(time.Second)
	idle := rssKB(t.pid, "VmRSS:")
	var open, completed atomic.Int64
	var firstErr error
	var mu sync.Mutex
	var wg sync.WaitGroup
	dial := make(chan struct{}, 256) // bounds handshakes in flight, not open streams
	start := time.Now()
	for range n {
		dial <- struct{}{}
		wg.Go(func() {
			released := false
			release := func() {
				if !released {
					released = true
					open.Add(1)
					<-dial
				}
			}
			err := slowStream(client, t, body, release)
			release()
			if err != nil {
				mu.Lock()
				firstErr = cmpErr(firstErr, err)
				mu.Unlock()
				return
			}
			completed.Add(1)
		})
	}
	openRSS, openPhase := sampleOpen(t.pid, n, &open, &completed, start)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	after, err := waitRecords(t.db, true, before+int64(n))
	if err != nil {
		return err
	}
	records := "-"
	if t.db != "" {
		records = strconv.FormatInt(after-before, 10)
	}
	fmt.Printf("| %s | %d | %d | %s | %s | %s | %.1f KB | %s | %s |\n", t.name, n, completed.Load(), records,
		fmtKB(idle), fmtKB(openRSS), float64(openRSS-idle)/float64(n), fmtKB(rssKB(t.pid, "VmHWM:")), openPhase)
	return nil
}

func cmpErr(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

// sampleOpen waits until all n streams have their first byte and none has
// completed, then samples the process's RSS every 100ms while that holds
// and returns the highest sample and how long opening took.
func sampleOpen(pid, n int, open, completed *atomic.Int64, start time.Time) (int64, string) {
	var best int64
	var opened time.Duration
	for completed.Load() == 0 {
		if open.Load() == int64(n) {
			if opened == 0 {
				opened = time.Since(start)
			}
			best = max(best, rssKB(pid, "VmRSS:"))
		} else if time.Since(start) > 10*time.Minute {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if opened == 0 {
		return 0, fmt.Sprintf("only %d of %d open at once", open.Load(), n)
	}
	return best, fmt.Sprintf("%.1fs", opened.Seconds())
}

// slowStream sends one streaming request, calls opened at its first byte,
// and reads the stream to its end, checking it finished with usage.
func slowStream(client *http.Client, t slowTarget, body string, opened func()) error {
	req, _ := http.NewRequest("POST", t.base+"/chat/completions", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+t.key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	if _, err := br.Peek(1); err != nil {
		return err
	}
	opened()
	rest, err := io.ReadAll(br)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d: %s", resp.StatusCode, bytes.TrimSpace(rest))
	}
	if !bytes.Contains(rest, []byte(`"completion_tokens"`)) || !bytes.HasSuffix(rest, []byte("data: [DONE]\n\n")) {
		return fmt.Errorf("stream ended without usage or [DONE]: %q", rest[max(0, len(rest)-200):])
	}
	return nil
}

// countRecords counts the usage records of answered streams (stream) or
// plain requests in a gateway's database (0 for none).
func countRecords(db string, stream bool) (int64, error) {
	if db == "" {
		return 0, nil
	}
	d, err := sql.Open("sqlite", "file:"+db+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		return 0, err
	}
	defer d.Close()
	var c int64
	err = d.QueryRowContext(context.Background(), `SELECT COUNT(*) FROM usage_records WHERE streamed = ? AND status = 200 AND completion_tokens > 0`, stream).Scan(&c)
	return c, err
}

// waitRecords polls the usage records until there are want of them, for
// up to 30s, and returns the last count.
func waitRecords(db string, stream bool, want int64) (int64, error) {
	if db == "" {
		return 0, nil
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := countRecords(db, stream)
		if err != nil || c >= want || time.Now().After(deadline) {
			return c, err
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// raiseNoFile raises the open-files limit of this process and of the
// processes it starts to at least want: the soft limit up to the hard one,
// and the hard one too where that is allowed.
func raiseNoFile(want uint64) error {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return err
	}
	if l.Max < want {
		raised := syscall.Rlimit{Cur: want, Max: want}
		if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &raised) == nil {
			return nil
		}
		return fmt.Errorf("%d streams need %d open files a process; the hard limit is %d", want/2-128, want, l.Max)
	}
	l.Cur = l.Max // explicit, so that the children inherit it too
	return syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l)
}

// runUpstream is the fake OpenAI upstream as a process of its own:
// bench upstream DELAY WORDS.
func runUpstream(delay, words string) {
	d, err := time.ParseDuration(delay)
	if err != nil {
		panic(err)
	}
	w, err := strconv.Atoi(words)
	if err != nil {
		panic(err)
	}
	up := fakeopenai.Start(fakeopenai.Options{TokenDelay: d, Words: w})
	defer up.Close()
	fmt.Println(up.URL)
	io.Copy(io.Discard, os.Stdin) // exits when stdin closes
}

// rssKB reads a /proc/PID/status field in kB (VmRSS:, VmHWM:).
func rssKB(pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb
		}
	}
	return 0
}

func fmtKB(kb int64) string { return fmt.Sprintf("%.1f MB", float64(kb)/1000) }
