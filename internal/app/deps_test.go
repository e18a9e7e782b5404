package app_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestHotPathImports keeps the request path free of the database: hot-path
// packages reach the store only through the small interfaces they declare,
// implemented in app (STYLE.md, "Package layout").
func TestHotPathImports(t *testing.T) {
	const mod = "github.com/switchyard-gw/switchyard/"
	hot := []string{"internal/api", "internal/auth", "internal/server", "internal/apikey", "internal/events",
		"internal/meter", "internal/limits", "internal/alerts", "internal/gateway"}
	banned := []string{mod + "internal/store", mod + "internal/dashboard", "github.com/jackc/pgx", "modernc.org/sqlite"}
	for _, pkg := range hot {
		out, err := exec.Command("go", "list", "-deps", mod+pkg).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, b := range banned {
				if strings.HasPrefix(dep, b) {
					t.Errorf("%s imports %s", pkg, dep)
				}
			}
		}
	}
}
