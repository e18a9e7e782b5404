package main

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
)

// memSnapshot is what a profiled process holds at one moment of the
// slow-streams measurement, read through its net/http/pprof after a
// forced collection: goroutines, and the runtime's MemStats of a heap
// profile's text form.
type memSnapshot struct {
	goroutines int64
	stats      map[string]int64 // "HeapAlloc", "StackInuse", "NextGC", ...
	heap       string           // the heap profile's file
}

// snapshotMem saves t's heap profile (inuse, after a collection) as
// prefix.heap-<when>.pprof and its goroutines, grouped by stack, as
// prefix.goroutine-<when>.txt, and reads the counts.
func snapshotMem(t slowTarget, when string) (memSnapshot, error) {
	s := memSnapshot{heap: t.prof + ".heap-" + when + ".pprof"}
	if err := fetchProfile(t.pprof+"/debug/pprof/heap?gc=1", s.heap); err != nil {
		return s, err
	}
	gr := t.prof + ".goroutine-" + when + ".txt"
	if err := fetchProfile(t.pprof+"/debug/pprof/goroutine?debug=1", gr); err != nil {
		return s, err
	}
	text, err := getText(t.pprof + "/debug/pprof/heap?debug=1")
	if err != nil {
		return s, err
	}
	s.stats = memStats(text)
	text, err = getText(t.pprof + "/debug/pprof/goroutine?debug=1")
	if err != nil {
		return s, err
	}
	first, _, _ := strings.Cut(text, "\n")
	s.goroutines, _ = strconv.ParseInt(strings.TrimPrefix(first, "goroutine profile: total "), 10, 64)
	return s, nil
}

func getText(url string) (string, error) {
	resp, err := http.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// memStats reads the "# Name = value" lines that end a heap profile's
// text form (runtime.MemStats).
func memStats(text string) map[string]int64 {
	m := map[string]int64{}
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		name, v, ok := strings.Cut(strings.TrimPrefix(sc.Text(), "# "), " = ")
		if !ok || !strings.HasPrefix(sc.Text(), "# ") {
			continue
		}
		if n, err := strconv.ParseInt(strings.Fields(v + " x")[0], 10, 64); err == nil {
			m[name] = n
		}
	}
	return m
}

// memReport is a profiled target's per-stream account: the difference
// between all streams open and idle, divided by the streams, and the top
// of the heap held by them.
func memReport(name string, n int, idle, open memSnapshot) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n## %s: where an open stream's memory goes (%d streams, after a forced GC)\n\n", name, n)
	per := func(k string) float64 { return float64(open.stats[k]-idle.stats[k]) / float64(n) / 1024 }
	fmt.Fprintf(&b, "- goroutines: %d idle, %d open, %.2f a stream\n", idle.goroutines, open.goroutines,
		float64(open.goroutines-idle.goroutines)/float64(n))
	fmt.Fprintf(&b, "- stacks (MemStats.StackInuse): %.1f KiB a stream, %.1f KiB a goroutine on average\n", per("Stack"),
		float64(open.stats["Stack"]-idle.stats["Stack"])/max(1, float64(open.goroutines-idle.goroutines))/1024)
	fmt.Fprintf(&b, "- live heap (HeapAlloc): %.1f KiB a stream; HeapInuse %.1f KiB; HeapSys-HeapReleased %.1f KiB\n",
		per("HeapAlloc"), per("HeapInuse"), (float64(open.stats["HeapSys"]-open.stats["HeapReleased"])-
			float64(idle.stats["HeapSys"]-idle.stats["HeapReleased"]))/float64(n)/1024)
	fmt.Fprintf(&b, "- heap goal (NextGC): %.1f MB open, %.1f MB idle; collections so far: %d\n",
		float64(open.stats["NextGC"])/1e6, float64(idle.stats["NextGC"])/1e6, open.stats["NumGC"])
	args := []string{"tool", "pprof", "-top", "-nodecount=25", "-sample_index=inuse_space", "-diff_base=" + idle.heap, open.heap}
	out, err := exec.Command("go", args...).CombinedOutput()
	if err != nil {
		fmt.Fprintf(&b, "\ngo %s: %v\n%s", strings.Join(args, " "), err, out)
		return b.String()
	}
	fmt.Fprintf(&b, "\nheap held by the open streams (go %s):\n\n```\n%s```\n", strings.Join(args, " "), out)
	return b.String()
}
