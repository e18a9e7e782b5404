package events

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"
)

// fakeSource is an in-memory change feed.
type fakeSource struct {
	mu      sync.Mutex
	changes []Change
	fails   int // how many reads fail before the feed answers again
	wake    chan<- struct{}
	ready   chan struct{}
}

func (f *fakeSource) add(kind, ref string) {
	f.mu.Lock()
	f.changes = append(f.changes, Change{Seq: int64(len(f.changes) + 1), Kind: kind, Ref: ref})
	w := f.wake
	f.mu.Unlock()
	if w != nil {
		select {
		case w <- struct{}{}:
		default:
		}
	}
}

func (f *fakeSource) LatestChange(context.Context) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return int64(len(f.changes)), nil
}

func (f *fakeSource) ChangesSince(_ context.Context, seq int64) ([]Change, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fails > 0 {
		f.fails--
		return nil, errors.New("connection reset")
	}
	return append([]Change(nil), f.changes[seq:]...), nil
}

func (f *fakeSource) Signal(ctx context.Context, wake chan<- struct{}) {
	f.mu.Lock()
	f.wake = wake
	f.mu.Unlock()
	close(f.ready)
	<-ctx.Done()
}

// startWatcher runs a Watcher of src, with a safety read too rare to
// matter, until t ends; it returns the changes delivered to the first
// handler and passes them to the others too.
func startWatcher(t *testing.T, src *fakeSource, more ...func(Change)) <-chan Change {
	w := NewWatcher(src, slog.New(slog.DiscardHandler), time.Hour)
	got := make(chan Change, 10)
	w.Handle(func(c Change) { got <- c })
	for _, h := range more {
		w.Handle(h)
	}
	ctx, cancel := context.WithCancel(context.Background())
	wait, err := w.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(wait)
	t.Cleanup(cancel)
	<-src.ready
	return got
}

func TestWatcherDeliversNewChangesOnce(t *testing.T) {
	src := &fakeSource{ready: make(chan struct{})}
	src.add(KindKey, "before-start") // not delivered: older than the watcher
	got := startWatcher(t, src, func(c Change) {
		if c.Ref == "panics" {
			panic("handler bug")
		}
	})
	src.add(KindKey, "a")
	src.add(KindAccount, "panics")
	src.add(KindKey, "b")
	var refs []string
	for len(refs) < 3 {
		select {
		case c := <-got:
			refs = append(refs, c.Ref)
		case <-time.After(5 * time.Second):
			t.Fatalf("delivered %v, want a, panics, b", refs)
		}
	}
	if refs[0] != "a" || refs[1] != "panics" || refs[2] != "b" {
		t.Errorf("delivered %v, want [a panics b]", refs)
	}
	select {
	case c := <-got:
		t.Errorf("extra delivery %+v", c)
	case <-time.After(50 * time.Millisecond):
	}
}

// TestWatcherRetriesFailedRead: a read that fails after a wake (the
// database dropped the pool's connections in a restart) is retried within
// milliseconds, not at the next safety read (issue 13: it waited 5 s).
func TestWatcherRetriesFailedRead(t *testing.T) {
	src := &fakeSource{ready: make(chan struct{})}
	got := startWatcher(t, src)
	src.mu.Lock()
	src.fails = 3
	src.mu.Unlock()
	start := time.Now()
	src.add(KindKey, "revoked")
	select {
	case c := <-got:
		if took := time.Since(start); c.Ref != "revoked" || took > time.Second {
			t.Errorf("delivered %+v after %v, want \"revoked\" within a second", c, took)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a change whose first reads failed was not delivered within 5 s")
	}
}
