// Command bench measures what Switchyard adds to a request: it starts a
// fake OpenAI upstream with a configurable latency and token rate, then, in
// one run and at several concurrencies, drives the same chat requests (a)
// straight at the upstream, (b) through a bare httputil.ReverseProxy and
// (c) through Switchyard (auth and the full request path), non-streaming
// and streaming, and prints requests per second, latency percentiles, the
// latency each proxy adds over direct, Switchyard's share of the proxy's
// requests per second, and the proxies' peak RSS.
//
//	go run ./bench [-duration 5s] [-rounds 5] [-concurrency 1,16,64] [-latency 0] [-token-delay 0] [-words 12]
//	               [-prompt-bytes 0] [-base DIR] [-observability] [-profile DIR]
//	go run ./bench -slow-streams N [-token-delay 1s] [-words 12] [-upstream-tls] [-base DIR] [-profile DIR]
//
// The machine drifts during a run (a shared 2-core machine moved the bare
// proxy's req/s by 10-20% from one measurement to the next), so each
// target is measured at each concurrency for -duration in all, split into
// -rounds rounds: each round runs every target for duration/rounds, in an
// order that changes from round to round (roundOrder), each target warmed
// up with a few hundred requests, not counted, before its first round.
// The table's req/s is the median of a target's rounds; its latencies are
// over all the rounds' requests; a share of another target's req/s is the
// median of the ratios of the two in the same round, printed with the
// least and greatest of those ratios. -rounds 1 is close to the old way:
// each target once for -duration, one after the other (in the rounds'
// first order, after its warm-up).
//
// -observability runs Switchyard as shipped, with metrics on, and with
// metrics and tracing on, to show what observing the request path costs.
// -base DIR adds Switchyard built from another source tree (an earlier
// commit, say) as the target "switchyard, base", to compare a change with
// the code before it in one run. -slow-streams N instead opens N concurrent
// streams whose upstream sends one chunk a -token-delay (1s unless given),
// through the bare proxy and through Switchyard, and prints each process's
// resident memory per open stream, checking every stream completed and, for
// Switchyard, was recorded. The upstream speaks plain HTTP/1.1, so that a
// proxy holds two sockets a stream, unless -upstream-tls: then it serves
// HTTPS with a certificate made for the run and offers HTTP/2, as real
// providers do, and the proxies, trusting it through SSL_CERT_FILE,
// multiplex the streams over a few upstream connections; the table says
// which protocol each proxy used and over how many connections. It raises
// the open-files limit the streams need when it may (root with
// CAP_SYS_RESOURCE), and otherwise runs as many streams as the limit
// allows and says why. With -profile it also takes heap profiles and
// goroutine dumps of Switchyard and the bare proxy idle and with all
// streams open, into DIR, and prints per stream the goroutines, stack and
// live heap, and the heap the streams hold.
//
// After all the rounds at a concurrency, the bench checks that each
// Switchyard with metering on holds exactly one new usage record a request
// the load generator saw answered (warm-ups included), and fails when it
// does not. -profile DIR builds the "switchyard" variant with the
// benchprofile tag (which serves net/http/pprof on a loopback address; the
// shipped binary has no pprof), collects CPU, allocation, block and mutex
// profiles of it and of the bare proxy over each round (rounded up to
// whole seconds), merges the rounds at a concurrency into one profile a
// kind in DIR, and prints the top of each.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"golang.org/x/sys/unix"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/switchyard-gw/switchyard/internal/testing/bareproxy"
	fakeopenai "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/openai"
)

func main() {
	if len(os.Args) > 2 && os.Args[1] == "proxy" {
		runProxy(os.Args[2], len(os.Args) > 3 && os.Args[3] == "profile")
		return
	}
	if len(os.Args) > 3 && os.Args[1] == "upstream" {
		runUpstream(os.Args[2:])
		return
	}
	duration := flag.Duration("duration", 5*time.Second, "load duration per target and concurrency, split into the rounds")
	rounds := flag.Int("rounds", 5, "rounds each target and concurrency is measured in, every target in each, in a rotating order")
	concList := flag.String("concurrency", "1,16,64", "comma-separated concurrencies")
	latency := flag.Duration("latency", 0, "upstream delay before the response headers")
	tokenDelay := flag.Duration("token-delay", 0, "upstream delay between streamed chunks")
	words := flag.Int("words", 12, "words per answer")
	promptBytes := flag.Int("prompt-bytes", 0, "bytes of text added to the user message (in units of 32)")
	base := flag.String("base", "", "also run Switchyard built from this source tree, as \"switchyard, base\"")
	observability := flag.Bool("observability", false, "run Switchyard as shipped, with metrics on, and with metrics and tracing on (every request sampled, spans sent to a local OTLP sink), instead of the usual variants")
	slowStreams := flag.Int("slow-streams", 0, "open this many concurrent slow streams and report memory per open stream")
	upstreamTLS := flag.Bool("upstream-tls", false, "with -slow-streams: the upstream serves HTTPS and offers HTTP/2, as real providers do, so that the proxies multiplex the streams over a few upstream connections")
	profile := flag.String("profile", "", "write CPU, allocs, block and mutex profiles of the \"switchyard\" variant and the bare proxy over each round, merged a concurrency, into this directory, and print their tops")
	flag.Parse()
	o := options{duration: *duration, rounds: *rounds, concList: *concList, latency: *latency, tokenDelay: *tokenDelay,
		words: *words, promptBytes: *promptBytes, base: *base, observability: *observability, slowStreams: *slowStreams,
		profile: *profile, upstreamTLS: *upstreamTLS}
	runner := run
	if o.slowStreams > 0 {
		runner = runSlow
	} else if o.upstreamTLS {
		fmt.Fprintln(os.Stderr, "bench: -upstream-tls applies to -slow-streams only")
		os.Exit(2)
	}
	if err := runner(o); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// target is one way to reach the upstream.
type target struct {
	name  string
	base  string // base URL including /v1
	key   string
	model string
	pid   int // process to read peak RSS from, 0 for none
	// db is the gateway's SQLite database when it meters, else "".
	db string
	// pprof is the process's net/http/pprof base URL and prof the path
	// prefix of its profiles, both "" when it is not profiled.
	pprof, prof string
}

// options are the command's flags.
type options struct {
	duration, latency, tokenDelay time.Duration
	concList, base, profile       string
	words, promptBytes            int
	slowStreams, rounds           int
	observability, upstreamTLS    bool
}

func run(o options) error {
	duration, concList, latency, tokenDelay, words := o.duration, o.concList, o.latency, o.tokenDelay, o.words
	var concs []int
	for _, s := range strings.Split(concList, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return fmt.Errorf("bad -concurrency %q", concList)
		}
		concs = append(concs, n)
	}
	if o.rounds < 1 || duration/time.Duration(o.rounds) <= 0 {
		return fmt.Errorf("bad -rounds %d for -duration %s", o.rounds, duration)
	}
	up := fakeopenai.Start(fakeopenai.Options{Latency: latency, TokenDelay: tokenDelay, Words: words})
	defer up.Close()

	dir, err := os.MkdirTemp("", "switchyard-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	self, err := os.Executable()
	if err != nil {
		return err
	}
	if o.profile != "" {
		// The profiles of each round go into rounds until they are merged.
		if err := os.MkdirAll(filepath.Join(o.profile, "rounds"), 0o755); err != nil {
			return err
		}
	}
	proxy, proxyURL, proxyPprof, err := startProfiledProxy(self, up.URL, o.profile != "", nil)
	if err != nil {
		return err
	}
	defer stop(proxy)

	targets := []target{
		{name: "direct", base: up.URL, key: "test-upstream-key", model: "gpt-5.4-mini"},
		{name: "httputil.ReverseProxy", base: proxyURL + "/v1", key: "test-upstream-key", model: "gpt-5.4-mini",
			pid: proxy.Process.Pid, pprof: proxyPprof, prof: profPrefix(o.profile, "proxy")},
	}
	// Switchyard three times: without metering, as shipped (metering on,
	// no rate limits configured), and with rate limits on every key and
	// account, high enough never to refuse, so that the checks run on
	// every request.
	variants := []struct{ name, src, config string }{
		{"switchyard, metering off", ".", "metering:\n  enabled: false\n"},
		{"switchyard", ".", ""},
		{"switchyard, rate limits on", ".", "limits:\n  key_rpm: 1000000000\n  key_tpm: 1000000000\n" +
			"  account_rpm: 1000000000\n  account_tpm: 1000000000\n"},
	}
	if o.observability {
		sink := otlpSink()
		defer sink.Close()
		metrics := "metrics:\n  enabled: true\n"
		variants = []struct{ name, src, config string }{
			{"switchyard", ".", ""},
			{"switchyard, metrics on", ".", metrics},
			{"switchyard, metrics and tracing on", ".", metrics + "tracing:\n  enabled: true\n  protocol: http/protobuf\n" +
				"  endpoint: " + sink.URL + "/v1/traces\n  sample_ratio: 1\n"},
		}
	}
	if o.base != "" {
		variants = append(variants, struct{ name, src, config string }{"switchyard, base", o.base, ""})
	}
	for _, v := range variants {
		profiled := o.profile != "" && v.name == "switchyard"
		name := fmt.Sprintf("gw%d", len(targets))
		g, err := startGateway(gatewaySpec{dir: dir, name: name, src: v.src, upstream: up.URL, config: v.config, profile: profiled})
		if err != nil {
			return err
		}
		defer g.stop()
		t := target{name: v.name, base: g.url + "/v1", key: g.key, model: "gpt-5.4-mini", pid: g.cmd.Process.Pid, pprof: g.pprof}
		if profiled {
			t.prof = profPrefix(o.profile, "switchyard")
		}
		if !strings.Contains(v.config, "metering:\n  enabled: false") {
			t.db = filepath.Join(dir, name+".db")
		}
		targets = append(targets, t)
	}
	fmt.Printf("# go run ./bench -duration %s -rounds %d -concurrency %s -latency %s -token-delay %s -words %d -prompt-bytes %d -base %q -profile %q\n\n",
		duration, o.rounds, concList, latency, tokenDelay, words, o.promptBytes, o.base, o.profile)
	fmt.Printf("upstream: fake OpenAI (latency %s, %s between chunks, %d words); GOMAXPROCS and cores: %d\n\n",
		latency, tokenDelay, words, runtimeCPUs())
	nRounds := map[bool]string{false: fmt.Sprintf("%d rounds", o.rounds), true: "1 round"}[o.rounds == 1]
	fmt.Printf("Each cell runs every target in %s of %s, in a different order each round. "+
		"req/s is the median of the rounds' req/s; latencies are over all the rounds' requests; "+
		"a share is the median of the rounds' ratios, each against the proxy (or Switchyard) in the same round, "+
		"and \"min-max\" their range.\n\n", nRounds, duration/time.Duration(o.rounds))
	for _, stream := range []bool{false, true} {
		kind := "non-streaming"
		if stream {
			kind = "streaming (latency = time to last byte; TTFB p50 shown)"
		}
		fmt.Printf("## chat, %s\n\n", kind)
		fmt.Printf("| target | conc | req/s, median of %s | p50 | p99 | TTFB p50 | added p50 | added p99 | %% of proxy req/s, median of rounds | min-max | %% of switchyard without this part, median of rounds | usage records / answered |\n", nRounds)
		fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
		for _, conc := range concs {
			c := cell{conc: conc, rounds: o.rounds, promptBytes: o.promptBytes, stream: stream, d: duration}
			tallies, err := c.measure(targets)
			if err != nil {
				return err
			}
			printRows(targets, tallies, conc)
		}
		fmt.Println()
	}
	fmt.Println("## peak RSS (VmHWM)")
	fmt.Println()
	for _, t := range targets[1:] {
		fmt.Printf("- %s: %s\n", t.name, peakRSS(t.pid))
	}
	if o.profile != "" {
		os.Remove(filepath.Join(o.profile, "rounds"))
		return printProfiles(o.profile)
	}
	return nil
}

// printRows prints a cell's rows of the table, one a target. The targets
// the others are compared with are found by name: "direct" for the added
// latency, the bare proxy for the share of its req/s, and for the last
// column Switchyard without metering (for Switchyard as shipped) and as
// shipped (for Switchyard with rate limits on).
func printRows(targets []target, tallies []tally, conc int) {
	byName := map[string]*tally{}
	for i, t := range targets {
		byName[t.name] = &tallies[i]
	}
	direct, bare := byName["direct"], byName["httputil.ReverseProxy"]
	for i, t := range targets {
		tl := &tallies[i]
		p50, p99 := pct(tl.lats, 50), pct(tl.lats, 99)
		added50, added99, proxyShare, spread, partShare := "-", "-", "-", "-", "-"
		if t.name != "direct" && direct != nil {
			added50 = fmtDur(p50 - pct(direct.lats, 50))
			added99 = fmtDur(p99 - pct(direct.lats, 99))
		}
		if strings.HasPrefix(t.name, "switchyard") && bare != nil {
			if med, lo, hi, ok := share(tl.rps, bare.rps); ok {
				proxyShare, spread = fmt.Sprintf("%.0f%%", 100*med), fmt.Sprintf("%.0f-%.0f%%", 100*lo, 100*hi)
			}
		}
		without := map[string]string{"switchyard": "switchyard, metering off", "switchyard, rate limits on": "switchyard"}[t.name]
		if w := byName[without]; w != nil {
			if med, _, _, ok := share(tl.rps, w.rps); ok {
				partShare = fmt.Sprintf("%.1f%%", 100*med)
			}
		}
		fmt.Printf("| %s | %d | %.0f | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", t.name, conc, median(tl.rps),
			fmtDur(p50), fmtDur(p99), fmtDur(pct(tl.ttfbs, 50)), added50, added99, proxyShare, spread, partShare, tl.records)
	}
}

// checkRecords waits for a metering gateway's database (db) to hold
// answered usage records of the kind (streamed or not) more than before,
// and returns "records/answered" for the table; an error when the
// database holds fewer or more. "-" when db is "".
func checkRecords(db string, stream bool, before, answered int64) (string, error) {
	if db == "" {
		return "-", nil
	}
	after, err := waitRecords(db, stream, before+answered)
	if err != nil {
		return "", err
	}
	if got := after - before; got != answered {
		return "", fmt.Errorf("usage records lost or doubled: %d new records for %d answered requests", got, answered)
	}
	return fmt.Sprintf("%d/%d", after-before, answered), nil
}

func runtimeCPUs() int {
	n := 0
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "processor") {
			n++
		}
	}
	return n
}

// runProxy is the bare reverse proxy, run as its own process so that it
// competes for the machine the way Switchyard does; with profile, it also
// serves net/http/pprof and prints its URL after the proxy's.
func runProxy(upstream string, profile bool) {
	u, err := url.Parse(upstream)
	if err != nil {
		panic(err)
	}
	rp := bareproxy.New(u)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	if profile {
		fmt.Println("http://"+ln.Addr().String(), servePprof())
	} else {
		fmt.Println("http://" + ln.Addr().String())
	}
	go func() { io.Copy(io.Discard, os.Stdin); os.Exit(0) }()
	http.Serve(ln, rp)
}

// startProfiledProxy starts the bare proxy to upstream, with env added to
// its environment, and, when profile is set, has it serve net/http/pprof
// too and returns its base URL.
func startProfiledProxy(self, upstream string, profile bool, env []string) (*exec.Cmd, string, string, error) {
	if !profile {
		cmd, url, err := startChild(self, env, "proxy", upstream)
		return cmd, url, "", err
	}
	cmd, urls, err := startChild(self, env, "proxy", upstream, "profile")
	if err != nil {
		return nil, "", "", err
	}
	url, pprofURL, _ := strings.Cut(urls, " ")
	return cmd, url, pprofURL, nil
}

// startChild starts this command with args, and env added to its
// environment, and reads the URL it prints.
func startChild(self string, env []string, args ...string) (*exec.Cmd, string, error) {
	cmd := exec.Command(self, args...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.Stderr = os.Stderr
	stdin, _ := cmd.StdinPipe()
	_ = stdin // closed by stop: the proxy exits when stdin closes
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		return nil, "", fmt.Errorf("%s did not start: %w", args[0], err)
	}
	return cmd, strings.TrimSpace(line), nil
}

// gatewaySpec is a gateway for startGateway to build and start; profile
// builds it with the benchprofile tag and serves its pprof; env is added
// to its environment.
type gatewaySpec struct {
	dir, name, src, upstream, config string
	profile                          bool
	env                              []string
}

// gateway is a started gateway: its process, base URL, API key and, when
// profiled, pprof base URL.
type gateway struct {
	cmd             *exec.Cmd
	exited          chan struct{} // closed once the process is waited for
	url, key, pprof string
}

// startGateway builds the gateway from the source tree s.src and starts
// it on a fresh SQLite database named for s.name, with OpenAI pointed at
// the fake upstream and the given configuration file, and creates a key.
func startGateway(s gatewaySpec) (gateway, error) {
	dir, name := s.dir, s.name
	bin, err := filepath.Abs(filepath.Join(dir, name+"-switchyard"))
	if err != nil {
		return gateway{}, err
	}
	build := exec.Command("go", "build", "-o", bin, "./cmd/switchyard")
	if s.profile {
		build = exec.Command("go", "build", "-tags", "benchprofile", "-o", bin, "./cmd/switchyard")
	}
	build.Dir, build.Stdout, build.Stderr = s.src, os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return gateway{}, fmt.Errorf("build switchyard: %w", err)
	}
	cfg := filepath.Join(dir, name+".yaml")
	if err := os.WriteFile(cfg, []byte(s.config), 0o600); err != nil {
		return gateway{}, err
	}
	env := append(os.Environ(), "SWITCHYARD_DATABASE_URL="+filepath.Join(dir, name+".db"),
		"SWITCHYARD_LISTEN=127.0.0.1:0", "OPENAI_BASE_URL="+s.upstream, "OPENAI_API_KEY=test-upstream-key")
	env = append(env, s.env...)
	for _, args := range [][]string{{"accounts", "create", "--email", "bench@example.com"}} {
		c := exec.Command(bin, args...)
		c.Env, c.Stderr = env, os.Stderr
		if err := c.Run(); err != nil {
			return gateway{}, err
		}
	}
	c := exec.Command(bin, "keys", "create", "--account", "bench@example.com", "--name", "bench", "--json")
	c.Env, c.Stderr = env, os.Stderr
	out, err := c.Output()
	if err != nil {
		return gateway{}, err
	}
	var created struct{ Key string }
	if err := json.Unmarshal(out, &created); err != nil {
		return gateway{}, err
	}
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(env, "SWITCHYARD_CONFIG="+cfg)
	if s.profile {
		cmd.Env = append(cmd.Env, "SWITCHYARD_PPROF_ADDR=127.0.0.1:0")
	}
	// The gateway's log (its access log included) goes to a file, as an
	// operator's would, and is read back here only until the gateway is
	// listening: a pipe read line by line would cost the load generator a
	// wakeup and a read a request, on the cores the targets share.
	logPath := filepath.Join(dir, name+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return gateway{}, err
	}
	defer logFile.Close() // the child has its own descriptor
	cmd.Stderr = logFile
	if err := cmd.Start(); err != nil {
		return gateway{}, err
	}
	g := gateway{cmd: cmd, key: created.Key, exited: exitedChan(cmd.Process.Pid)}
	started := false
	defer func() {
		if !started {
			g.stop()
		}
	}()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		listening, err := readStartLog(logPath, &g)
		if err != nil {
			return gateway{}, err
		}
		if listening {
			if s.profile && g.pprof == "" {
				return gateway{}, fmt.Errorf("switchyard built with -tags benchprofile serves no pprof")
			}
			started = true
			return g, nil
		}
		select {
		case <-g.exited:
			return gateway{}, fmt.Errorf("switchyard exited before listening; its log: %s", logPath)
		case <-time.After(20 * time.Millisecond):
		}
	}
	return gateway{}, fmt.Errorf("switchyard did not start within a minute; its log: %s", logPath)
}

// readStartLog reads the gateway's log from the start and notes the
// addresses it announced in g, reporting whether it is listening.
func readStartLog(path string, g *gateway) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var line struct{ Msg, Addr string }
		if json.Unmarshal(sc.Bytes(), &line) != nil {
			continue
		}
		switch line.Msg {
		case "pprof listening":
			g.pprof = "http://" + line.Addr
		case "switchyard listening":
			g.url = "http://" + line.Addr
			return true, nil
		}
	}
	return false, sc.Err()
}

// stop ends the gateway as stop does a command, then reaps it.
func (g gateway) stop() {
	g.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-g.exited:
	case <-time.After(10 * time.Second):
		g.cmd.Process.Kill()
		<-g.exited
	}
	g.cmd.Wait()
}

// exitedChan returns a channel closed when the child pid exits. It does
// not reap the child: until stop does, its pid stays its own, so that
// reading its peak RSS cannot read another process's.
func exitedChan(pid int) chan struct{} {
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		var info unix.Siginfo
		for unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil) == unix.EINTR {
		}
	}()
	return exited
}

func stop(cmd *exec.Cmd) {
	if cmd == nil || cmd.Process == nil {
		return
	}
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
	}
}

// peakRSS reads a process's high-water resident set size.
func peakRSS(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmHWM:"))
		}
	}
	return "unknown"
}

// once sends one request and reads the whole answer.
func once(client *http.Client, t target, body string) (lat, ttfb time.Duration, err error) {
	req, _ := http.NewRequest("POST", t.base+"/chat/completions", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+t.key)
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	if _, err := br.Peek(1); err != nil && err != io.EOF {
		return 0, 0, err
	}
	ttfb = time.Since(start)
	rest, err := io.ReadAll(br)
	if err != nil {
		return 0, 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return 0, 0, fmt.Errorf("status %d: %s", resp.StatusCode, bytes.TrimSpace(rest))
	}
	return time.Since(start), ttfb, nil
}

func pct(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := (len(sorted)*p + 99) / 100
	return sorted[min(max(i-1, 0), len(sorted)-1)]
}

func fmtDur(d time.Duration) string {
	switch {
	case d < 0:
		return "-" + fmtDur(-d)
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	default:
		return fmt.Sprintf("%.2fms", float64(d.Microseconds())/1000)
	}
}

// otlpSink is an OTLP/HTTP trace receiver that accepts and discards every
// export (an empty ExportTraceServiceResponse is an empty body), so that
// tracing costs the gateway what it would with a collector at hand.
func otlpSink() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(http.StatusOK)
	}))
}
