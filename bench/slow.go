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
	"time"

	_ "modernc.org/sqlite" // reads the gateway's usage records
)

// slowTarget is a proxy under the slow-streams measurement; db is the
// gateway's SQLite database, "" for the bare proxy.
type slowTarget struct {
	name, base, key, db string
	pid                 int
	// pprof is the process's net/http/pprof base URL and prof the path
	// prefix of its profiles, both "" when it is not profiled.
	pprof, prof string
}

// runSlow opens o.slowStreams concurrent slow streams through the bare
// proxy and through Switchyard (and the base build when asked), one target
// after the other, and prints the resident memory each process holds per
// open stream.
func runSlow(o options) error {
	perStream := 2 // the client's socket and the upstream's
	if o.upstreamTLS {
		perStream = 1 // the client's: the upstream's are shared
	}
	n, capped, err := openFiles(o.slowStreams, perStream, systemRlimits())
	if err != nil {
		return err
	}
	if capped != "" {
		fmt.Fprintln(os.Stderr, "bench: note:", capped)
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
	up, upCmd, err := startUpstream(self, dir, delay, o.words, o.upstreamTLS)
	if err != nil {
		return err
	}
	defer stop(upCmd)
	if o.profile != "" {
		if err := os.MkdirAll(o.profile, 0o755); err != nil {
			return err
		}
	}
	proxy, proxyURL, proxyPprof, err := startProfiledProxy(self, up.url, o.profile != "", up.env)
	if err != nil {
		return err
	}
	defer stop(proxy)
	targets := []slowTarget{{name: "httputil.ReverseProxy", base: proxyURL + "/v1", key: "test-upstream-key",
		pid: proxy.Process.Pid, pprof: proxyPprof, prof: profPrefix(o.profile, "proxy")}}
	srcs := [][2]string{{"switchyard", "."}}
	if o.base != "" {
		srcs = append(srcs, [2]string{"switchyard, base", o.base})
	}
	for i, s := range srcs {
		name := fmt.Sprintf("gw%d", i)
		profiled := o.profile != "" && i == 0
		g, err := startGateway(gatewaySpec{dir: dir, name: name, src: s[1], upstream: up.url, profile: profiled, env: up.env})
		if err != nil {
			return err
		}
		defer g.stop()
		t := slowTarget{name: s[0], base: g.url + "/v1", key: g.key, db: filepath.Join(dir, name+".db"), pid: g.cmd.Process.Pid}
		if profiled {
			t.pprof, t.prof = g.pprof, profPrefix(o.profile, "switchyard")
		}
		targets = append(targets, t)
	}
	tlsFlag, how := "", "plain HTTP/1.1"
	if o.upstreamTLS {
		tlsFlag, how = " -upstream-tls", "HTTPS offering HTTP/2 (and HTTP/1.1), its certificate trusted through SSL_CERT_FILE"
	}
	fmt.Printf("# go run ./bench -slow-streams %d -token-delay %s -words %d%s -base %q -profile %q\n\n", o.slowStreams, delay, o.words, tlsFlag, o.base, o.profile)
	fmt.Printf("upstream: fake OpenAI over %s, %d words a stream (one chunk each, plus role, finish and usage chunks), %s between chunks; cores: %d\n\n",
		how, o.words, delay, runtimeCPUs())
	if capped != "" {
		fmt.Printf("note: %s\n\n", capped)
	}
	if o.profile != "" {
		fmt.Printf("note: the profiled processes (%s, %s) sample allocations every 4 KiB, which costs memory of its own, and are collected when the profiles are taken\n\n",
			targets[0].name, targets[1].name)
	}
	fmt.Println("| target | streams | completed | usage records | RSS idle | RSS with all open | per open stream | peak RSS (VmHWM) | open phase | upstream, as it saw the target |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
	var reports []string
	for _, t := range targets {
		report, err := slowOne(t, n, up)
		if err != nil {
			return fmt.Errorf("%s: %w", t.name, err)
		}
		reports = append(reports, report)
	}
	fmt.Print(strings.Join(reports, ""))
	return nil
}

// slowOne measures one target and prints its table row; for a profiled
// target it returns the account of where the memory went.
func slowOne(t slowTarget, n int, up upstream) (string, error) {
	upBefore, err := up.stats()
	if err != nil {
		return "", err
	}
	body := `{"model":"gpt-5.4-mini","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"Say hello"}]}`
	tr := &http.Transport{MaxConnsPerHost: 0, MaxIdleConns: n, MaxIdleConnsPerHost: n, DisableCompression: true}
	client := &http.Client{Transport: tr}
	defer tr.CloseIdleConnections()
	// One warm-up stream, then let the process settle before reading idle RSS.
	if err := slowStream(client, t, body, func() {}); err != nil {
		return "", err
	}
	before, err := waitRecords(t.db, true, 1) // the warm-up stream's record
	if err != nil {
		return "", err
	}
	time.Sleep(time.Second)
	idle := rssKB(t.pid, "VmRSS:")
	var idleMem, openMem memSnapshot
	var profErr error
	atOpen := func() {}
	if t.pprof != "" {
		if idleMem, err = snapshotMem(t, "idle"); err != nil {
			return "", err
		}
		atOpen = func() { openMem, profErr = snapshotMem(t, "open") }
	}
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
	openRSS, openPhase := sampleOpen(t.pid, n, &open, &completed, start, atOpen)
	wg.Wait()
	if firstErr != nil {
		return "", firstErr
	}
	after, err := waitRecords(t.db, true, before+int64(n))
	if err != nil {
		return "", err
	}
	records := "-"
	if t.db != "" {
		records = strconv.FormatInt(after-before, 10)
	}
	upAfter, err := up.stats()
	if err != nil {
		return "", err
	}
	allOpen, perStream := openCells(idle, openRSS, n)
	fmt.Printf("| %s | %d | %d | %s | %s | %s | %s | %s | %s | %s |\n", t.name, n, completed.Load(), records,
		fmtKB(idle), allOpen, perStream, fmtKB(rssKB(t.pid, "VmHWM:")), openPhase, upAfter.sub(upBefore))
	switch {
	case t.pprof == "":
		return "", nil
	case profErr != nil:
		return "", profErr
	case openMem.stats == nil:
		return fmt.Sprintf("\n%s: no profile: the streams were never all open at once\n", t.name), nil
	}
	return memReport(t.name, n, idleMem, openMem), nil
}

// openCells are the table's "RSS with all open" and "per open stream"
// from the RSS idle and with all n streams open, in kB; "-" when the
// streams were never all open at once (openKB 0), rather than a figure
// that means nothing.
func openCells(idleKB, openKB int64, n int) (allOpen, perStream string) {
	if openKB == 0 {
		return "-", "-"
	}
	return fmtKB(openKB), fmt.Sprintf("%.1f KB", float64(openKB-idleKB)/float64(n))
}

func cmpErr(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

// sampleOpen waits until all n streams have their first byte and none has
// completed, then samples the process's RSS every 100ms while that holds
// and returns the highest sample and how long opening took. A second after
// all are open, it calls atOpen once (which may force a collection: RSS
// only falls by it).
func sampleOpen(pid, n int, open, completed *atomic.Int64, start time.Time, atOpen func()) (int64, string) {
	var best int64
	var opened time.Duration
	for completed.Load() == 0 {
		if open.Load() == int64(n) {
			if opened == 0 {
				opened = time.Since(start)
			}
			best = max(best, rssKB(pid, "VmRSS:"))
			if atOpen != nil && time.Since(start) > opened+time.Second {
				atOpen()
				atOpen = nil
			}
		} else if time.Since(start) > 10*time.Minute {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if opened == 0 {
		return 0, fmt.Sprintf("only %d of %d open at once: more -words make streams last longer", open.Load(), n)
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
