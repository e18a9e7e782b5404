package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// exec runs switchyard with args in dir on db and returns its combined
// output and exit status.
func execStatus(t *testing.T, dir, db string, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := command(ctx, dir, db, args...).CombinedOutput()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return string(out), 0
	case errors.As(err, &ee):
		return string(out), ee.ExitCode()
	}
	t.Fatalf("switchyard %v: %v", args, err)
	return "", 0
}

// Every group prints its own usage for -h, --help and help, exit 0; with
// no subcommand, the same usage and exit 2.
func TestGroupHelp(t *testing.T) {
	dir := t.TempDir()
	groups := map[string][]string{
		"keys":     {"create", "list", "revoke"},
		"accounts": {"create", "list", "update"},
		"limits":   {"set", "show"},
		"alerts":   {"add", "list", "remove"},
	}
	for group, subs := range groups {
		for _, flag := range []string{"-h", "--help", "help", ""} {
			t.Run(group+" "+flag, func(t *testing.T) {
				args := []string{group}
				want := 0
				if flag == "" {
					want = 2
				} else {
					args = append(args, flag)
				}
				out, code := execStatus(t, dir, filepath.Join(dir, "none.db"), args...)
				if code != want || !strings.Contains(out, "Usage: switchyard "+group+" <subcommand>") {
					t.Errorf("exit %d (want %d), output:\n%s", code, want, out)
				}
				for _, s := range subs {
					if !strings.Contains(out, "  "+s+" ") {
						t.Errorf("usage lacks %q:\n%s", s, out)
					}
				}
			})
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "none.db")); err == nil {
		t.Error("help created a database")
	}
}

// Allow-lists take only catalogue IDs and prefixes that match one, and a
// refusal names the close matches.
func TestAllowListChecksCatalogue(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "gw.db")
	run(t, dir, db, "", "accounts", "create", "--email", "o@example.com")
	tests := []struct {
		models string
		ok     bool
		hint   string
	}{
		{"gpt-4o-mini, mock-chat, claude-*", true, ""},
		{"gpt-4o-mnii", false, "gpt-4o-mini"},
		{"claud-*", false, "claude-*"},
		{"zzz-*", false, "matches no model"},
	}
	for _, tt := range tests {
		out, code := execStatus(t, dir, db, "keys", "create", "--account", "o@example.com", "--name", "n", "--models", tt.models)
		if (code == 0) != tt.ok || !strings.Contains(out, tt.hint) {
			t.Errorf("--models %q: exit %d, output %s; want ok %t and %q", tt.models, code, out, tt.ok, tt.hint)
		}
	}
	out, code := execStatus(t, dir, db, "accounts", "update", "--email", "o@example.com", "--models", "gpt-4o-mnii")
	if code == 0 || !strings.Contains(out, "gpt-4o-mini") {
		t.Errorf("accounts update: exit %d, %s", code, out)
	}
}

// alerts add keeps the rule but warns when the webhook's address is one
// the sender refuses.
func TestAlertsAddWarnsRefusedWebhook(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "gw.db")
	run(t, dir, db, "", "accounts", "create", "--email", "o@example.com")
	tests := []struct {
		url  string
		warn bool
	}{
		{"http://127.0.0.1:9/hook", true},
		{"http://10.1.2.3/hook", true},
		{"https://93.184.215.14/hook", false},
	}
	for _, tt := range tests {
		out, code := execStatus(t, dir, db, "alerts", "add", "--account", "o@example.com", "--threshold-usd", "5", "--webhook", tt.url)
		if code != 0 || strings.Contains(out, "warning:") != tt.warn {
			t.Errorf("%s: exit %d, output %s; want a warning %t", tt.url, code, out, tt.warn)
		}
		if tt.warn && !strings.Contains(out, "webhook_allow_private") {
			t.Errorf("%s: the warning does not say how to allow it: %s", tt.url, out)
		}
	}
}

// Commands that only read or change existing data do not create an empty
// database where there is none.
func TestAdminCommandsNeedDatabase(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"keys", "revoke", "key_x"},
		{"keys", "list", "--account", "o@example.com"},
		{"keys", "create", "--account", "o@example.com", "--name", "n"},
		{"usage", "--account", "o@example.com"},
		{"accounts", "list"},
		{"limits", "show", "--account", "o@example.com"},
		{"alerts", "list", "--account", "o@example.com"},
		{"backup", "--to", filepath.Join(dir, "copy.db")},
	} {
		out, code := execStatus(t, dir, "", args...)
		if code != 1 || !strings.Contains(out, "no database") || !strings.Contains(out, "switchyard.db") {
			t.Errorf("%v: exit %d, output %s; want 1 and no database", args, code, out)
		}
		if _, err := os.Stat(filepath.Join(dir, "switchyard.db")); err == nil {
			t.Fatalf("%v created switchyard.db", args)
		}
	}
	if out, code := execStatus(t, dir, "", "accounts", "create", "--email", "o@example.com"); code != 0 {
		t.Errorf("accounts create in an empty folder: exit %d, %s", code, out)
	}
	if out, code := execStatus(t, dir, "", "keys", "list", "--account", "o@example.com"); code != 0 {
		t.Errorf("keys list once the database exists: exit %d, %s", code, out)
	}
}
