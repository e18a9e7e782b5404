package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchyard-gw/switchyard/internal/meter"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
	"github.com/switchyard-gw/switchyard/internal/usd"
)

// runStatus runs switchyard and returns its exit status and stderr.
func runStatus(t *testing.T, dir, db string, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := command(ctx, dir, db, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), stderr.String()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, stderr.String()
}

func TestLimitsCommands(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "gw.db")
	_, keyID := createKey(t, dir, db)
	const owner = "owner@example.com"
	if out := run(t, dir, db, "", "limits", "set", "--account", owner, "--monthly-budget-usd", "12.5", "--rpm", "60"); !strings.Contains(out, "$12.50") {
		t.Errorf("limits set printed %q", out)
	}
	if out := run(t, dir, db, "", "limits", "set", "--account", owner, "--key", keyID, "--monthly-budget-usd", "0.000375", "--tpm", "1000"); !strings.Contains(out, keyID) || !strings.Contains(out, "$0.000375") {
		t.Errorf("limits set --key printed %q", out)
	}

	type limits struct {
		ID     string  `json:"id"`
		RPM    *int64  `json:"rpm"`
		TPM    *int64  `json:"tpm"`
		Budget *string `json:"monthly_budget_usd"`
	}
	show := func() (acct limits, keys map[string]limits) {
		var got struct {
			Account limits   `json:"account"`
			Keys    []limits `json:"keys"`
		}
		out := run(t, dir, db, "", "limits", "show", "--account", owner, "--json")
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("limits show --json printed %q: %v", out, err)
		}
		keys = map[string]limits{}
		for _, k := range got.Keys {
			keys[k.ID] = k
		}
		return got.Account, keys
	}
	p := func(n int64) *int64 { return &n }
	s := func(v string) *string { return &v }
	acct, keys := show()
	if diff := cmp.Diff(limits{ID: acct.ID, RPM: p(60), Budget: s("12.50")}, acct); diff != "" {
		t.Errorf("account limits (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(limits{ID: keyID, TPM: p(1000), Budget: s("0.000375")}, keys[keyID]); diff != "" {
		t.Errorf("key limits (-want +got):\n%s", diff)
	}
	if len(keys) != 2 {
		t.Errorf("limits show lists %d keys, want 2", len(keys))
	}
	table := run(t, dir, db, "", "limits", "show", "--account", owner)
	for _, want := range []string{"12.50", "0.000375", keyID, "unlimited"} {
		if !strings.Contains(table, want) {
			t.Errorf("limits show lacks %q:\n%s", want, table)
		}
	}

	run(t, dir, db, "", "limits", "set", "--account", owner, "--monthly-budget-usd", "0", "--rpm", "0")
	if acct, keys := show(); acct.RPM != nil || acct.Budget != nil || keys[keyID].Budget == nil {
		t.Errorf("after clearing the account's limits: %+v, key %+v", acct, keys[keyID])
	}
	if code, stderr := runStatus(t, dir, db, "limits", "set", "--account", owner, "--key", "key_nope", "--rpm", "1"); code != 1 || !strings.Contains(stderr, "not found") {
		t.Errorf("unknown key: exit %d, %s", code, stderr)
	}
}

func TestAlertsCommands(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "gw.db")
	const owner = "owner@example.com"
	run(t, dir, db, "", "accounts", "create", "--email", owner)
	out := strings.TrimSpace(run(t, dir, db, "", "alerts", "add", "--account", owner, "--threshold-usd", "50", "--webhook", "https://hooks.example.com/billing"))
	secret := out[strings.LastIndex(out, "\n")+1:]
	if !strings.HasPrefix(secret, "whsec_") || len(secret) != len("whsec_")+32 || !strings.Contains(out, "X-Switchyard-Signature") {
		t.Errorf("alerts add --webhook printed %q; want the secret alone on the last line and the header it signs", out)
	}
	if out := run(t, dir, db, "", "alerts", "add", "--account", owner, "--threshold-usd", "5.25"); !strings.Contains(out, "email "+owner) || strings.Contains(out, "whsec_") {
		t.Errorf("alerts add without a channel printed %q; want the account's own email and no secret", out)
	}

	type rule struct {
		ID, Threshold, Webhook, Email string
	}
	list := func() []rule {
		var got []struct {
			ID        string `json:"id"`
			Threshold string `json:"threshold_usd"`
			Webhook   string `json:"webhook_url"`
			Email     string `json:"email"`
		}
		out := run(t, dir, db, "", "alerts", "list", "--account", owner, "--json")
		if err := json.Unmarshal([]byte(out), &got); err != nil || strings.Contains(out, "whsec_") {
			t.Fatalf("alerts list --json printed %q: %v", out, err)
		}
		var rules []rule
		for _, r := range got {
			rules = append(rules, rule{r.ID, r.Threshold, r.Webhook, r.Email})
		}
		return rules
	}
	rules := list()
	if len(rules) != 2 || !strings.HasPrefix(rules[0].ID, "alr_") || !strings.HasPrefix(rules[1].ID, "alr_") {
		t.Fatalf("alerts list: %+v", rules)
	}
	want := []rule{{rules[0].ID, "5.25", "", owner}, {rules[1].ID, "50.00", "https://hooks.example.com/billing", ""}}
	if diff := cmp.Diff(want, rules); diff != "" {
		t.Errorf("alerts list, lowest threshold first (-want +got):\n%s", diff)
	}
	if table := run(t, dir, db, "", "alerts", "list", "--account", owner); strings.Contains(table, secret) || !strings.Contains(table, rules[1].ID) {
		t.Errorf("alerts list:\n%s", table)
	}

	run(t, dir, db, "", "alerts", "remove", "--account", owner, rules[0].ID)
	if got := list(); len(got) != 1 || got[0].ID != rules[1].ID {
		t.Errorf("after remove: %+v", got)
	}
	if code, stderr := runStatus(t, dir, db, "alerts", "remove", "--account", owner, rules[0].ID); code != 1 || !strings.Contains(stderr, "not found") {
		t.Errorf("removing twice: exit %d, %s", code, stderr)
	}

	// A webhook URL's user information is a credential: never printed
	// (issue 13). The dashboard shows owners their own URLs.
	out = run(t, dir, db, "", "alerts", "add", "--account", owner, "--threshold-usd", "75", "--webhook", "https://bot:s3cret@hooks.example.com/b?x=1")
	table := run(t, dir, db, "", "alerts", "list", "--account", owner)
	asJSON := run(t, dir, db, "", "alerts", "list", "--account", owner, "--json")
	for what, got := range map[string]string{"alerts add": out, "alerts list": table, "alerts list --json": asJSON} {
		if strings.Contains(got, "s3cret") || strings.Contains(got, "bot") || !strings.Contains(got, "https://redacted@hooks.example.com/b?x=1") {
			t.Errorf("%s printed the webhook's credentials, or not its masked URL:\n%s", what, got)
		}
	}
}

// usageFixture stores records straight into the database the CLI uses and
// returns the IDs of the two keys createKey made.
func usageFixture(t *testing.T, dir, db string) (ci, second string) {
	t.Helper()
	createKey(t, dir, db)
	ctx := context.Background()
	st := storetest.Open(t, db)
	acct, err := st.AccountByEmail(ctx, "owner@example.com")
	if err != nil {
		t.Fatal(err)
	}
	keys, err := st.ListKeys(ctx, acct.ID)
	if err != nil || len(keys) != 2 {
		t.Fatalf("keys %+v, %v", keys, err)
	}
	ci, second = keys[0].ID, keys[1].ID
	if keys[0].Name != "ci" {
		ci, second = second, ci
	}
	rec := func(id, day, model, key string, prompt, completion int64, cost string, status int) meter.Record {
		tm, _ := time.Parse(time.DateOnly, day)
		c, err := usd.Parse(cost)
		if err != nil {
			t.Fatal(err)
		}
		return meter.Record{ID: id, Time: tm.Add(13 * time.Hour), AccountID: acct.ID, KeyID: key, Model: model,
			PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion, Cost: c, Status: status}
	}
	today := time.Now().UTC().Format(time.DateOnly)
	recs := []meter.Record{
		rec("r1", "2020-04-01", "gpt-4o", ci, 100, 50, "0.000375", 200),
		rec("r2", "2020-04-01", "claude", second, 10, 5, "0.000000001", 500),
		rec("r3", "2020-04-02", "gpt-4o", ci, 1000, 0, "1.25", 200),
		rec("r4", "2020-03-31", "gpt-4o", ci, 7, 7, "7", 200),
		rec("r5", today, "mock-chat", ci, 3, 4, "0.5", 200),
	}
	if n, err := st.WriteUsage(ctx, recs); err != nil || n != len(recs) {
		t.Fatalf("WriteUsage = %d, %v", n, err)
	}
	return ci, second
}

func TestUsageCommand(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		dir := t.TempDir()
		ci, second := usageFixture(t, dir, b.URL)
		usage := func(args ...string) string {
			return run(t, dir, b.URL, "", append([]string{"usage", "--account", "owner@example.com"}, args...)...)
		}
		fields := func(table string) [][]string {
			var out [][]string
			for _, line := range strings.Split(strings.TrimSpace(table), "\n") {
				out = append(out, strings.Fields(line))
			}
			return out
		}

		got := fields(usage("--since", "2020-04-01", "--until", "2020-04-02"))
		want := [][]string{
			{"DAY", "REQUESTS", "ERRORS", "PROMPT", "COMPLETION", "TOTAL", "TOKENS", "COST", "USD"},
			{"2020-04-01", "2", "1", "110", "55", "165", "0.000375001"},
			{"2020-04-02", "1", "0", "1000", "0", "1000", "1.25"},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("usage by day (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(want[:1], fields(usage("--since", "2019-01-01", "--until", "2019-12-31"))); diff != "" {
			t.Errorf("usage of an empty range (-want +got):\n%s", diff)
		}
		// The default range is this month up to today.
		if got := fields(usage("--by", "model")); len(got) != 2 || !cmp.Equal(got[1], []string{"mock-chat", "1", "0", "3", "4", "7", "0.50"}) {
			t.Errorf("usage with the default range: %v", got)
		}

		csv := usage("--since", "2020-03-01", "--until", "2020-04-30", "--by", "model", "--csv")
		wantCSV := "model,requests,errors,prompt_tokens,completion_tokens,total_tokens,cost_usd\n" +
			"claude,1,1,10,5,15,0.000000001\n" +
			"gpt-4o,3,0,1107,57,1164,8.250375\n"
		if csv != wantCSV {
			t.Errorf("usage --csv:\n%s\nwant:\n%s", csv, wantCSV)
		}

		raw := usage("--since", "2020-04-01", "--until", "2020-04-01", "--by", "key", "--json")
		dec := json.NewDecoder(bytes.NewReader([]byte(raw)))
		dec.UseNumber()
		var rows []map[string]any
		if err := dec.Decode(&rows); err != nil {
			t.Fatalf("usage --json printed %q: %v", raw, err)
		}
		wantJSON := []map[string]any{
			{"key_id": ci, "key_name": "ci", "requests": json.Number("1"), "errors": json.Number("0"), "prompt_tokens": json.Number("100"),
				"completion_tokens": json.Number("50"), "total_tokens": json.Number("150"), "cost_usd": "0.000375"},
			{"key_id": second, "key_name": "second", "requests": json.Number("1"), "errors": json.Number("1"), "prompt_tokens": json.Number("10"),
				"completion_tokens": json.Number("5"), "total_tokens": json.Number("15"), "cost_usd": "0.000000001"},
		}
		if ci > second {
			wantJSON[0], wantJSON[1] = wantJSON[1], wantJSON[0]
		}
		if diff := cmp.Diff(wantJSON, rows); diff != "" {
			t.Errorf("usage --json (-want +got):\n%s", diff)
		}
		if out := usage("--since", "2019-01-01", "--until", "2019-01-31", "--json"); strings.TrimSpace(out) != "[]" {
			t.Errorf("usage --json of an empty range printed %q", out)
		}
	})
}

func TestMeteringCommandErrors(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "gw.db")
	const a = "owner@example.com"
	run(t, dir, db, "", "accounts", "create", "--email", a)
	tests := []struct {
		args []string
		want string // in the message
	}{
		{[]string{"usage"}, "--account"},
		{[]string{"usage", "--account", a, "--by", "week"}, "--by"},
		{[]string{"usage", "--account", a, "--since", "2026-02-30"}, "--since"},
		{[]string{"usage", "--account", a, "--until", "yesterday"}, "--until"},
		{[]string{"usage", "--account", a, "--since", "2026-05-02", "--until", "2026-05-01"}, "--since"},
		{[]string{"usage", "--account", a, "--json", "--csv"}, "--json and --csv"},
		{[]string{"usage", "--account", a, "extra"}, "extra"},
		{[]string{"limits"}, "subcommand"},
		{[]string{"limits", "set", "--account", a}, "--monthly-budget-usd"},
		{[]string{"limits", "set", "--rpm", "5"}, "--account"},
		{[]string{"limits", "set", "--account", a, "--rpm", "-5"}, "--rpm"},
		{[]string{"limits", "set", "--account", a, "--tpm", "many"}, "-tpm"},
		{[]string{"limits", "set", "--account", a, "--monthly-budget-usd", "1.2.3"}, "--monthly-budget-usd"},
		{[]string{"limits", "set", "--account", a, "--monthly-budget-usd", "-1"}, "--monthly-budget-usd"},
		{[]string{"limits", "set", "--account", a, "--monthly-budget-usd", "1e3"}, "--monthly-budget-usd"},
		{[]string{"limits", "show"}, "--account"},
		{[]string{"alerts", "add", "--account", a}, "--threshold-usd"},
		{[]string{"alerts", "add", "--account", a, "--threshold-usd", "0"}, "--threshold-usd"},
		{[]string{"alerts", "add", "--account", a, "--threshold-usd", "ten"}, "--threshold-usd"},
		{[]string{"alerts", "add", "--account", a, "--threshold-usd", "5", "--webhook", "ftp://example.com/x"}, "--webhook"},
		{[]string{"alerts", "add", "--account", a, "--threshold-usd", "5", "--webhook", "https://"}, "--webhook"},
		{[]string{"alerts", "add", "--account", a, "--threshold-usd", "5", "--webhook", "hooks.example.com"}, "--webhook"},
		{[]string{"alerts", "add", "--account", a, "--threshold-usd", "5", "--email", "nobody"}, "--email"},
		{[]string{"alerts", "list"}, "--account"},
		{[]string{"alerts", "remove", "--account", a}, "alert ID"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, stderr := runStatus(t, dir, db, tt.args...)
			if code != 2 || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and a message naming %q", code, stderr, tt.want)
			}
		})
	}
}
