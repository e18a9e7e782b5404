package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Each proxy under the slow-streams measurement holds one or two sockets
// a stream (the client's, and the upstream's over HTTP/1.1), and some
// files besides: its listener, the SQLite database and journal, the
// runtime's epoll, and the upstream connections HTTP/2 multiplexes the
// streams over (a few dozen for 10,000 streams, at the 250 streams a
// connection a Go server allows).
const filesSpare = 256

// rlimits is the process's view of RLIMIT_NOFILE; tests replace it.
type rlimits struct {
	get func() (syscall.Rlimit, error)
	set func(syscall.Rlimit) error
	// nrOpen is fs.nr_open, the most any process may be allowed, root
	// included; 0 when unknown.
	nrOpen uint64
	// whyNot says why raising the hard limit was refused.
	whyNot func() string
}

// systemRlimits are the real limits of this process.
func systemRlimits() rlimits {
	return rlimits{
		get: func() (syscall.Rlimit, error) {
			var l syscall.Rlimit
			err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l)
			return l, err
		},
		// An explicit Setrlimit also makes the processes this one starts
		// inherit the limit: otherwise os/exec gives them back the soft
		// limit the process started with.
		set:    func(l syscall.Rlimit) error { return syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l) },
		nrOpen: readUint("/proc/sys/fs/nr_open"),
		whyNot: missingPrivilege,
	}
}

// openFiles raises the open-files limit of this process, and so of the
// processes it starts, far enough for n slow streams of perStream files
// each in a proxy: the soft limit to
// the hard one, and the hard one too when it is short and the process may
// raise it (root with CAP_SYS_RESOURCE, up to fs.nr_open). It returns the
// number of streams that fit, n unless the limit could not be raised
// enough, and then why, for the output.
func openFiles(n, perStream int, rl rlimits) (fits int, why string, err error) {
	want := uint64(perStream*n + filesSpare)
	l, err := rl.get()
	if err != nil {
		return 0, "", fmt.Errorf("open-files limit: %w", err)
	}
	if l.Max >= want {
		l.Cur = l.Max
		return n, "", rl.set(l)
	}
	target := want
	if rl.nrOpen > 0 && rl.nrOpen < want {
		target = rl.nrOpen
	}
	raised := syscall.Rlimit{Cur: target, Max: target}
	if err := rl.set(raised); err == nil {
		if target == want {
			return n, "", nil
		}
		l = raised
		why = fmt.Sprintf("the kernel allows no process more than %d open files (fs.nr_open)", rl.nrOpen)
	} else {
		l.Cur = l.Max
		if err := rl.set(l); err != nil {
			return 0, "", fmt.Errorf("open-files limit: %w", err)
		}
		why = fmt.Sprintf("the hard open-files limit is %d and raising it to %d was refused (%v): %s",
			l.Max, target, err, rl.whyNot())
	}
	fits = 0
	if l.Max > filesSpare {
		fits = int((l.Max - filesSpare) / uint64(perStream))
	}
	if fits < 1 {
		return 0, "", fmt.Errorf("%d open files allow no stream: %s", l.Max, why)
	}
	files := map[bool]string{false: "files", true: "file"}[perStream == 1]
	return fits, fmt.Sprintf("capped at %d streams instead of %d: a proxy holds %d %s a stream plus up to %d others, and %s",
		fits, n, perStream, files, filesSpare, why), nil
}

// capSysResource is the bit of CAP_SYS_RESOURCE in /proc/PID/status's
// capability masks.
const capSysResource = 24

// missingPrivilege says what this process lacks to raise a hard limit.
func missingPrivilege() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "it needs root with CAP_SYS_RESOURCE"
	}
	return privilegeNote(os.Geteuid(), string(b))
}

// privilegeNote explains, from the effective user and /proc/self/status,
// why raising a hard limit fails, and how to get a larger one.
func privilegeNote(euid int, status string) string {
	const fix = "run the bench as root with CAP_SYS_RESOURCE, or raise the hard limit before it starts (ulimit -Hn, the container's nofile ulimit)"
	if euid != 0 {
		return fmt.Sprintf("the bench runs as user %d, not root; %s", euid, fix)
	}
	for _, line := range strings.Split(status, "\n") {
		if v, ok := strings.CutPrefix(line, "CapEff:"); ok {
			mask, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			if err == nil && mask&(1<<capSysResource) == 0 {
				return "the bench runs as root but without CAP_SYS_RESOURCE (a container drops it unless given --cap-add SYS_RESOURCE); " + fix
			}
		}
	}
	return fix
}

// readUint reads a number from a file such as /proc/sys/fs/nr_open; 0 when
// it cannot.
func readUint(path string) uint64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	v, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0
	}
	return v
}
