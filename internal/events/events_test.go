package events

import (
	"context"
	"sync"
	"testing"
	"time"
)

// fakeSource is an in-memory change feed.
type fakeSource struct {
	mu      sync.Mutex
	changes []Change
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
	return append([]Change(nil), f.changes[seq:]...), nil
}

func (f *fakeSource) Signal(ctx context.Context, wake chan<- struct{}) {
	f.mu.Lock()
	f.wake = wake
	f.mu.Unlock()
	close(f.ready)
	<-ctx.Done()
}

func TestWatcherDeliversNewChangesOnce(t *testing.T) {
	src := &fakeSource{ready: make(chan struct{})}
	src.add(KindKey, "before-start") // not delivered: older than the watcher
	w := NewWatcher(src, nil, time.Hour)
	got := make(chan Change, 10)
	w.Handle(func(c Change) { got <- c })
	w.Handle(func(c Change) {
		if c.Ref == "panics" {
			panic("handler bug")
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	wait, err := w.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer wait()
	defer cancel()
	<-src.ready
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
