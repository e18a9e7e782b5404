package main

import (
	"strings"
	"syscall"
	"testing"
)

// fakeLimits is RLIMIT_NOFILE as a process sees it: set refuses to raise
// the hard limit unless privileged, and any limit over nrOpen.
type fakeLimits struct {
	l          syscall.Rlimit
	privileged bool
	nrOpen     uint64
	sets       []syscall.Rlimit
}

func (f *fakeLimits) rlimits() rlimits {
	return rlimits{
		get: func() (syscall.Rlimit, error) { return f.l, nil },
		set: func(l syscall.Rlimit) error {
			f.sets = append(f.sets, l)
			if l.Cur > l.Max || l.Max > f.l.Max && !f.privileged || f.nrOpen > 0 && l.Max > f.nrOpen {
				return syscall.EPERM
			}
			f.l = l
			return nil
		},
		nrOpen: f.nrOpen,
		whyNot: func() string { return "no CAP_SYS_RESOURCE" },
	}
}

// TestOpenFiles: the bench runs the streams asked for when the limits
// allow or can be raised, and otherwise as many as fit, saying why.
func TestOpenFiles(t *testing.T) {
	tests := []struct {
		name       string
		cur, max   uint64
		privileged bool
		nrOpen     uint64
		n, files   int // streams asked for, files a stream
		wantN      int
		wantLimit  syscall.Rlimit // the limits in force after
		wantWhy    []string       // in the note; none: no note
	}{
		{name: "hard limit enough", cur: 1024, max: 20000, n: 9800, files: 2, wantN: 9800,
			wantLimit: syscall.Rlimit{Cur: 20000, Max: 20000}},
		{name: "raised as root", cur: 1024, max: 20000, privileged: true, nrOpen: 1 << 20, n: 10000, files: 2, wantN: 10000,
			wantLimit: syscall.Rlimit{Cur: 20256, Max: 20256}},
		{name: "raise refused", cur: 1024, max: 20000, nrOpen: 1 << 20, n: 10000, files: 2, wantN: 9872,
			wantLimit: syscall.Rlimit{Cur: 20000, Max: 20000},
			wantWhy:   []string{"capped at 9872 streams instead of 10000", "hard open-files limit is 20000", "no CAP_SYS_RESOURCE"}},
		{name: "over fs.nr_open", cur: 1024, max: 20000, privileged: true, nrOpen: 30000, n: 20000, files: 2, wantN: 14872,
			wantLimit: syscall.Rlimit{Cur: 30000, Max: 30000},
			wantWhy:   []string{"capped at 14872 streams instead of 20000", "more than 30000 open files (fs.nr_open)"}},
		// Upstream streams multiplexed over HTTP/2: 10,000 fit under the
		// hard limit that caps HTTP/1.1 at 9872.
		{name: "one file a stream", cur: 1024, max: 20000, nrOpen: 1 << 20, n: 10000, files: 1, wantN: 10000,
			wantLimit: syscall.Rlimit{Cur: 20000, Max: 20000}},
		{name: "one file a stream, raise refused", cur: 1024, max: 20000, nrOpen: 1 << 20, n: 30000, files: 1, wantN: 19744,
			wantLimit: syscall.Rlimit{Cur: 20000, Max: 20000},
			wantWhy:   []string{"capped at 19744 streams instead of 30000", "holds 1 file a stream"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeLimits{l: syscall.Rlimit{Cur: tt.cur, Max: tt.max}, privileged: tt.privileged, nrOpen: tt.nrOpen}
			n, why, err := openFiles(tt.n, tt.files, f.rlimits())
			if err != nil {
				t.Fatal(err)
			}
			if n != tt.wantN || f.l != tt.wantLimit {
				t.Errorf("openFiles(%d) = %d streams, limits %+v; want %d, %+v (set: %+v)", tt.n, n, f.l, tt.wantN, tt.wantLimit, f.sets)
			}
			if len(tt.wantWhy) == 0 && why != "" {
				t.Errorf("note %q, want none", why)
			}
			for _, w := range tt.wantWhy {
				if !strings.Contains(why, w) {
					t.Errorf("note %q does not say %q", why, w)
				}
			}
		})
	}
}

// TestOpenFilesTooFew: a hard limit that leaves no room for a stream
// fails the run rather than measuring nothing.
func TestOpenFilesTooFew(t *testing.T) {
	f := &fakeLimits{l: syscall.Rlimit{Cur: 200, Max: 256}}
	if n, _, err := openFiles(10, 2, f.rlimits()); err == nil {
		t.Errorf("openFiles with 256 files = %d streams, want an error", n)
	}
}

// TestPrivilegeNote: the note names what the process lacks.
func TestPrivilegeNote(t *testing.T) {
	tests := []struct {
		euid   int
		status string
		want   string
	}{
		{1000, "CapEff:\t0000000000000000\n", "runs as user 1000, not root"},
		{0, "Name:\tbench\nCapEff:\t000001fffeffffff\n", "without CAP_SYS_RESOURCE"},
		{0, "CapEff:\t000001ffffffffff\n", "run the bench as root with CAP_SYS_RESOURCE"},
	}
	for _, tt := range tests {
		got := privilegeNote(tt.euid, tt.status)
		if !strings.Contains(got, tt.want) {
			t.Errorf("privilegeNote(%d, %q) = %q, want it to say %q", tt.euid, tt.status, got, tt.want)
		}
	}
	if got := privilegeNote(0, "CapEff:\t000001ffffffffff\n"); strings.Contains(got, "without") {
		t.Errorf("with CAP_SYS_RESOURCE: %q", got)
	}
}

// TestOpenFilesSystem runs against this process's real limits, asking for
// no more than the hard limit allows: the soft limit ends at the hard one.
func TestOpenFilesSystem(t *testing.T) {
	rl := systemRlimits()
	l, err := rl.get()
	if err != nil {
		t.Fatal(err)
	}
	n := int((l.Max - filesSpare) / 2)
	if l.Max > 1<<20 {
		n = 1000
	}
	got, why, err := openFiles(n, 2, rl)
	if err != nil || got != n || why != "" {
		t.Fatalf("openFiles(%d) = %d, %q, %v", n, got, why, err)
	}
	after, _ := rl.get()
	if after.Cur != after.Max || after.Max != l.Max {
		t.Errorf("limits %+v after openFiles, want the soft one at the hard one, %d", after, l.Max)
	}
}
