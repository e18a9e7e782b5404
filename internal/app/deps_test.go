package app_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const mod = "github.com/switchyard-gw/switchyard/"

// TestImports keeps dependencies pointing one way (STYLE.md, "Package
// layout"): hot-path packages reach the store only through the small
// interfaces they declare, implemented in app, and trace through
// OpenTelemetry's API only; and the fake upstreams
// under internal/testing serve tests, bench and e2e, never the binary.
func TestImports(t *testing.T) {
	hot := []string{"internal/api", "internal/auth", "internal/server", "internal/apikey", "internal/events",
		"internal/meter", "internal/limits", "internal/alerts", "internal/gateway", "internal/route",
		"internal/catalog", "internal/provider/...", "internal/sse"}
	tests := []struct {
		name     string
		packages []string // go list patterns, relative to the module
		banned   []string // import path prefixes
	}{
		{"hot path", hot, []string{mod + "internal/store", mod + "internal/dashboard", "github.com/jackc/pgx", "modernc.org/sqlite", mod + "internal/testing/",
			// Spans are made through OpenTelemetry's API; its SDK and
			// exporters are the app's to set up (internal/metrics).
			"go.opentelemetry.io/otel/sdk", "go.opentelemetry.io/otel/exporters", "google.golang.org/grpc"}},
		// net/http/pprof only in the profiling build (-tags benchprofile,
		// go run ./bench -profile): TestProfilingBuild.
		{"binary", []string{"cmd/switchyard"}, []string{mod + "internal/testing/", "net/http/pprof"}},
		// Issue 17: metrics observe the hot path through plain values app
		// hands them, so that any package may import them.
		{"metrics", []string{"internal/metrics"}, prefixed(hot, mod+"internal/store", mod+"internal/dashboard", mod+"internal/app")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, pkg := range tt.packages {
				for _, dep := range deps(t, pkg) {
					for _, b := range tt.banned {
						if strings.HasPrefix(dep, b) {
							t.Errorf("%s imports %s", pkg, dep)
						}
					}
				}
			}
		})
	}
}

// TestProfilingBuild: the benchprofile tag links net/http/pprof into the
// binary (cmd/switchyard/pprof.go), so that TestImports' ban on it in the
// shipped build tests something.
func TestProfilingBuild(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-tags", "benchprofile", mod+"cmd/switchyard").Output()
	if err != nil {
		t.Fatalf("go list -deps -tags benchprofile: %v", err)
	}
	if !slices.Contains(strings.Fields(string(out)), "net/http/pprof") {
		t.Error("the benchprofile build of cmd/switchyard does not import net/http/pprof")
	}
}

// deps lists the packages that pattern's non-test packages import,
// themselves included. It fails when the pattern matches nothing, so
// that a moved package does not pass unchecked.
func deps(t *testing.T, pattern string) []string {
	t.Helper()
	target := mod + pattern
	out, err := exec.Command("go", "list", "-deps", target).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pattern, err)
	}
	list := strings.Fields(string(out))
	own := strings.TrimSuffix(target, "/...")
	if !slices.ContainsFunc(list, func(p string) bool { return p == own || strings.HasPrefix(p, own+"/") }) {
		t.Fatalf("go list -deps %s: the pattern lists no package of its own", pattern)
	}
	return list
}

// prefixed returns the import path prefixes of the module's packages
// pkgs ("internal/provider/..." is internal/provider, a prefix of its
// subpackages) and more.
func prefixed(pkgs []string, more ...string) []string {
	out := more
	for _, p := range pkgs {
		out = append(out, mod+strings.TrimSuffix(p, "/..."))
	}
	return out
}
