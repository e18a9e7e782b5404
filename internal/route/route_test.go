package route_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/route"
)

// fake is a configured provider with nothing behind it.
type fake struct{ name, typ string }

func (f fake) Name() string { return f.name }
func (f fake) Type() string { return f.typ }

// today is the tests' fixed clock: gpt-3.5-turbo (sunset 2026-10-23) is
// retired, claude-sonnet-4-5 (sunset 2026-11-30) is still served.
var today = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func clock(t time.Time) func() time.Time { return func() time.Time { return t } }

func builtin(t *testing.T) *catalog.Catalog {
	t.Helper()
	c, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// target is what a test compares of a route.Target.
type target struct{ Model, Provider, Upstream string }

func targetOf(tg route.Target) target {
	return target{Model: tg.Model.ID, Provider: tg.Provider.Name(), Upstream: tg.UpstreamID}
}

func TestPick(t *testing.T) {
	providers := []provider.Provider{
		fake{"openai", "openai"},
		fake{"openai-org2", "openai"},
		fake{"anthropic-eu", "anthropic"},     // by type
		fake{"together", "openai_compatible"}, // by name, whatever its type
		fake{"together-2", "together"},
	}
	tab := route.New(builtin(t), providers, clock(today))
	tests := []struct {
		id    string
		allow route.Allow
		want  target // zero: ErrNotFound
	}{
		{id: "gpt-4o", want: target{"gpt-4o", "openai", "gpt-4o"}},
		{id: "claude-haiku-4-5", want: target{"claude-haiku-4-5", "anthropic-eu", "claude-haiku-4-5"}},
		{id: "llama-3.3-70b-instruct", want: target{"llama-3.3-70b-instruct", "together", "meta-llama/Llama-3.3-70B-Instruct-Turbo"}},
		{id: "claude-sonnet-4-5", want: target{"claude-sonnet-4-5", "anthropic-eu", "claude-sonnet-4-5"}}, // sunset in 8 days
		{id: "gemini-2.5-flash-lite"}, // no gemini provider
		{id: "llama-3.1-8b-instruct"}, // groq not configured
		{id: "gpt-3.5-turbo"},         // retired 2026-10-23
		{id: "o1-mini"},               // retired 2025-10-27
		{id: "GPT-4o"},                // IDs are case-sensitive
		{id: "gpt-9"},                 // unknown
		{id: ""},                      // empty
		{id: "gpt-4o", allow: route.Allow{Key: []string{"gpt-4o-mini"}}}, // not allowed
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			got, err := tab.Pick(tt.id, tt.allow)
			if tt.want == (target{}) {
				if !errors.Is(err, route.ErrNotFound) {
					t.Fatalf("Pick = %+v, %v; want ErrNotFound", got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, targetOf(got)); diff != "" {
				t.Errorf("Pick (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPickRetiresOnSunset(t *testing.T) {
	tests := []struct {
		now   time.Time
		found bool
	}{
		{today, true},
		{time.Date(2026, 11, 29, 23, 59, 59, 0, time.UTC), true},
		{time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC), false},
		{time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC), false},
	}
	for _, tt := range tests {
		t.Run(tt.now.Format(time.RFC3339), func(t *testing.T) {
			tab := route.New(builtin(t), []provider.Provider{fake{"anthropic", "anthropic"}}, clock(tt.now))
			_, err := tab.Pick("claude-sonnet-4-5", route.Allow{})
			if found := err == nil; found != tt.found {
				t.Errorf("Pick at %v: err %v, want found=%v", tt.now, err, tt.found)
			}
		})
	}
}

// Deployments are tried in order; the first whose provider is configured
// (by name, else by type) serves.
func TestPickDeployments(t *testing.T) {
	cat, err := builtin(t).With([]catalog.Entry{{
		ID: "house-llama", Mode: catalog.ModeChat,
		Deployments: []catalog.Deployment{
			{Provider: "vllm-gpu", UpstreamID: "meta-llama/Llama-3.1-8B-Instruct"},
			{Provider: "groq", UpstreamID: "llama-3.1-8b-instant"},
			{Provider: "together", UpstreamID: "meta-llama/Meta-Llama-3.1-8B-Instruct-Turbo"},
		},
	}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		providers []provider.Provider
		want      target // zero: ErrNotFound
	}{
		{"first by name", []provider.Provider{fake{"together", "together"}, fake{"vllm-gpu", "openai_compatible"}},
			target{"house-llama", "vllm-gpu", "meta-llama/Llama-3.1-8B-Instruct"}},
		{"second by type", []provider.Provider{fake{"together", "together"}, fake{"groq-main", "groq"}},
			target{"house-llama", "groq-main", "llama-3.1-8b-instant"}},
		{"first provider of a type", []provider.Provider{fake{"groq-a", "groq"}, fake{"groq-b", "groq"}},
			target{"house-llama", "groq-a", "llama-3.1-8b-instant"}},
		{"last", []provider.Provider{fake{"openai", "openai"}, fake{"together", "together"}},
			target{"house-llama", "together", "meta-llama/Meta-Llama-3.1-8B-Instruct-Turbo"}},
		{"none", []provider.Provider{fake{"openai", "openai"}}, target{}},
		{"no providers", nil, target{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab := route.New(cat, tt.providers, clock(today))
			got, err := tab.Pick("house-llama", route.Allow{})
			if tt.want == (target{}) {
				if !errors.Is(err, route.ErrNotFound) {
					t.Errorf("Pick = %+v, %v; want ErrNotFound", got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, targetOf(got)); diff != "" {
				t.Errorf("Pick (-want +got):\n%s", diff)
			}
			p, ok := tab.Reachable(got.Model)
			if !ok || p.Name() != tt.want.Provider {
				t.Errorf("Reachable = %v, %v; want %s, true", p, ok, tt.want.Provider)
			}
		})
	}
}

func TestPermits(t *testing.T) {
	tests := []struct {
		name  string
		allow route.Allow
		id    string
		want  bool
	}{
		{"empty lists", route.Allow{}, "gpt-4o", true},
		{"empty non-nil lists", route.Allow{Account: []string{}, Key: []string{}}, "gpt-4o", true},
		{"exact", route.Allow{Key: []string{"gpt-4o"}}, "gpt-4o", true},
		{"exact is not a prefix", route.Allow{Key: []string{"gpt-4o"}}, "gpt-4o-mini", false},
		{"exact is case-sensitive", route.Allow{Key: []string{"GPT-4o"}}, "gpt-4o", false},
		{"trailing star", route.Allow{Key: []string{"gpt-4o*"}}, "gpt-4o-mini", true},
		{"trailing star matches the bare prefix", route.Allow{Key: []string{"gpt-4o*"}}, "gpt-4o", true},
		{"trailing star other prefix", route.Allow{Key: []string{"gpt-4o*"}}, "gpt-4.1", false},
		{"star alone", route.Allow{Account: []string{"*"}}, "claude-opus-5", true},
		{"star only trails", route.Allow{Key: []string{"gpt-*-mini"}}, "gpt-4o-mini", false},
		{"star in the middle is literal", route.Allow{Key: []string{"gpt-*-mini"}}, "gpt-*-mini", true},
		{"any entry", route.Allow{Key: []string{"claude-*", "gpt-4o"}}, "gpt-4o", true},
		{"account only", route.Allow{Account: []string{"claude-*"}}, "gpt-4o", false},
		{"both lists permit", route.Allow{Account: []string{"gpt-*"}, Key: []string{"gpt-4o-mini"}}, "gpt-4o-mini", true},
		{"key narrows account", route.Allow{Account: []string{"gpt-*"}, Key: []string{"gpt-4o-mini"}}, "gpt-4o", false},
		{"account narrows key", route.Allow{Account: []string{"gpt-4o"}, Key: []string{"gpt-*"}}, "gpt-5", false},
		{"disjoint lists", route.Allow{Account: []string{"gpt-*"}, Key: []string{"claude-*"}}, "claude-opus-5", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.allow.Permits(tt.id); got != tt.want {
				t.Errorf("%+v.Permits(%q) = %v, want %v", tt.allow, tt.id, got, tt.want)
			}
		})
	}
}

func TestParseAllowList(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
		bad      string
	}{
		{"empty", "", nil, ""},
		{"blank", " ,\t, ", nil, ""},
		{"commas", "gpt-4o,claude-*", []string{"gpt-4o", "claude-*"}, ""},
		{"commas and spaces", " gpt-4o , claude-* ,, llama-*\n", []string{"gpt-4o", "claude-*", "llama-*"}, ""},
		{"spaces only", "gpt-4o claude-*", []string{"gpt-4o", "claude-*"}, ""},
		{"slash and colon", "meta-llama/Llama-3.3-70B qwen2.5:7b", []string{"meta-llama/Llama-3.3-70B", "qwen2.5:7b"}, ""},
		{"star alone", "*", []string{"*"}, ""},
		{"star inside", "gpt-*-mini", nil, "gpt-*-mini"},
		{"two stars", "gpt**", nil, "gpt**"},
		{"quote", `gpt-4o,"x"`, nil, `"x"`},
		{"NUL", "gpt\x00", nil, "gpt\x00"},
		{"escape", "gpt\x1b[0m", nil, "gpt\x1b[0m"},
		{"not UTF-8", "ok,\xff", nil, "\xff"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, bad := route.ParseAllowList(tt.in)
			if bad != tt.bad || !slices.Equal(got, tt.want) {
				t.Errorf("ParseAllowList(%q) = %q, %q; want %q, %q", tt.in, got, bad, tt.want, tt.bad)
			}
		})
	}
}

func TestAvailable(t *testing.T) {
	openaiOnly := []provider.Provider{fake{"openai", "openai"}}
	tests := []struct {
		name      string
		providers []provider.Provider
		allow     route.Allow
		want      []string
	}{
		{
			name:      "catalogue order, retired and unreachable models left out",
			providers: openaiOnly,
			allow:     route.Allow{Key: []string{"gpt-4o*", "gpt-3.5-turbo*", "o1*", "text-embedding-3-*", "claude-haiku-4-5"}},
			want: []string{"gpt-4o", "gpt-4o-2024-08-06", "gpt-4o-2024-11-20", "gpt-4o-mini", "gpt-4o-mini-2024-07-18",
				"gpt-3.5-turbo-instruct", "text-embedding-3-small", "text-embedding-3-large"},
		},
		{
			name:      "a second provider makes its models available",
			providers: append(openaiOnly, fake{"anthropic", "anthropic"}),
			allow:     route.Allow{Account: []string{"claude-haiku-4-5", "claude-3-opus-20240229", "gpt-4o"}},
			want:      []string{"gpt-4o", "claude-haiku-4-5"},
		},
		{
			name:      "both lists",
			providers: openaiOnly,
			allow:     route.Allow{Account: []string{"gpt-5*"}, Key: []string{"gpt-5.4*"}},
			want:      []string{"gpt-5.4", "gpt-5.4-mini", "gpt-5.4-nano"},
		},
		{
			name:      "nothing allowed",
			providers: openaiOnly,
			allow:     route.Allow{Account: []string{"gpt-*"}, Key: []string{"claude-*"}},
			want:      nil,
		},
		{
			name:  "no providers",
			allow: route.Allow{},
			want:  nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab := route.New(builtin(t), tt.providers, clock(today))
			var got []string
			for _, m := range tab.Available(tt.allow) {
				got = append(got, m.ID)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Available (-want +got):\n%s", diff)
			}
		})
	}
}

// Every model Available lists can be picked, and every model it leaves
// out cannot.
func TestAvailableAgreesWithPick(t *testing.T) {
	cat := builtin(t)
	tab := route.New(cat, []provider.Provider{fake{"openai", "openai"}, fake{"groq", "groq"}, fake{"gemini", "gemini"}}, clock(today))
	allow := route.Allow{Key: []string{"gpt-*", "gemini-*", "llama-*", "claude-*"}}
	listed := map[string]bool{}
	for _, m := range tab.Available(allow) {
		listed[m.ID] = true
	}
	if len(listed) == 0 {
		t.Fatal("Available listed nothing")
	}
	for _, m := range cat.All() {
		_, err := tab.Pick(m.ID, allow)
		if picked := err == nil; picked != listed[m.ID] {
			t.Errorf("%s: Pick err %v, but listed by Available = %v", m.ID, err, listed[m.ID])
		}
	}
}

func TestReachable(t *testing.T) {
	cat := builtin(t)
	tab := route.New(cat, []provider.Provider{fake{"openai-main", "openai"}}, clock(today))
	tests := []struct {
		id   string
		want string // provider name; "" = unreachable
	}{
		{"gpt-4o", "openai-main"},
		{"gpt-3.5-turbo", "openai-main"}, // retired, but a provider still serves its type
		{"claude-opus-5", ""},
		{"llama-3.3-70b-instruct", ""},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			m, ok := cat.Lookup(tt.id)
			if !ok {
				t.Fatalf("%s not in the catalogue", tt.id)
			}
			p, ok := tab.Reachable(m)
			got := ""
			if ok {
				got = p.Name()
			}
			if got != tt.want {
				t.Errorf("Reachable(%s) = %q, %v; want %q", tt.id, got, ok, tt.want)
			}
		})
	}
	if tab.Catalog() != cat {
		t.Error("Catalog() is not the table's catalogue")
	}
}

func TestStatus(t *testing.T) {
	cat := builtin(t)
	tab := route.New(cat, []provider.Provider{fake{"openai-main", "openai"}, fake{"claude", "anthropic"}}, clock(today))
	tests := []struct {
		id         string
		want       route.Status
		wantServer string
	}{
		{"gpt-5.4", route.StatusAvailable, "openai-main"},
		{"gpt-4o", route.StatusDeprecated, "openai-main"},       // sunset on 2027-01-14
		{"claude-sonnet-4-5", route.StatusDeprecated, "claude"}, // sunset on 2026-11-30
		{"gpt-3.5-turbo", route.StatusRetired, "openai-main"},
		{"llama-3.3-70b-instruct", route.StatusUnreachable, ""},
	}
	for _, tt := range tests {
		m, ok := cat.Lookup(tt.id)
		if !ok {
			t.Fatalf("%s not in the catalogue", tt.id)
		}
		status, p := tab.Status(m)
		server := ""
		if p != nil {
			server = p.Name()
		}
		if status != tt.want || server != tt.wantServer {
			t.Errorf("Status(%s) = %q, %q; want %q, %q", tt.id, status, server, tt.want, tt.wantServer)
		}
	}
	var names []string
	for _, p := range tab.Providers() {
		names = append(names, p.Name())
	}
	if want := []string{"claude", "openai-main"}; !slices.Equal(names, want) {
		t.Errorf("Providers = %v, want %v", names, want)
	}
}

func TestDeployments(t *testing.T) {
	cat, err := builtin(t).With([]catalog.Entry{{ID: "gpt-4o-mini", Deployments: []catalog.Deployment{
		{Provider: "east", UpstreamID: "gpt-4o-mini", Weight: 3},
		{Provider: "gone", UpstreamID: "gpt-4o-mini"}, // no such provider: skipped
		{Provider: "openai", UpstreamID: "gpt-4o-mini-2024-07-18", Priority: 1},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	tab := route.New(cat, []provider.Provider{fake{"east", "openai_compatible"}, fake{"openai-org2", "openai"}}, clock(today))
	m, err := tab.Lookup("gpt-4o-mini", route.Allow{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range tab.Deployments(m) {
		got = append(got, d.Key)
	}
	want := []string{"east/gpt-4o-mini", "openai-org2/gpt-4o-mini-2024-07-18"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
	if ds := tab.Deployments(m); ds[0].Weight != 3 || ds[1].Priority != 1 {
		t.Errorf("weight and priority not carried: %+v", ds)
	}
	if _, err := tab.Lookup("gpt-4o-mini", route.Allow{Key: []string{"gpt-4o"}}); !errors.Is(err, route.ErrNotFound) {
		t.Errorf("Lookup of a model the key may not use: %v, want ErrNotFound", err)
	}
}

// timed is a provider that reports its timeouts.
type timed struct {
	fake
	t provider.Timeouts
}

func (p timed) Timeouts() provider.Timeouts { return p.t }

// Each deployment carries its effective first-byte and total timeouts:
// its own, else its provider's, the first byte never past the total.
func TestDeploymentTimeouts(t *testing.T) {
	const m = time.Minute
	cat, err := builtin(t).With([]catalog.Entry{{ID: "gpt-4o-mini", Deployments: []catalog.Deployment{
		{Provider: "east", UpstreamID: "a"},
		{Provider: "east", UpstreamID: "b", FirstByteTimeout: 5 * time.Second},
		{Provider: "east", UpstreamID: "c", FirstByteTimeout: 20 * m, Timeout: 30 * m},
		{Provider: "east", UpstreamID: "d", Timeout: 30 * time.Second},
		{Provider: "plain", UpstreamID: "e"},
		{Provider: "plain", UpstreamID: "f", Timeout: m},
		{Provider: "whole", UpstreamID: "g", Timeout: 30 * m}, // its first byte follows its timeout
		{Provider: "whole", UpstreamID: "h"},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	providers := []provider.Provider{
		timed{fake{"east", "openai_compatible"}, provider.Timeouts{Connect: time.Second, FirstByte: m, Total: 10 * m}},
		fake{"plain", "openai_compatible"}, // reports none
		// First byte as long as the whole call: no bound of its own.
		timed{fake{"whole", "openai_compatible"}, provider.Timeouts{FirstByte: 10 * m, Total: 10 * m}},
	}
	tab := route.New(cat, providers, clock(today))
	mod, err := tab.Lookup("gpt-4o-mini", route.Allow{})
	if err != nil {
		t.Fatal(err)
	}
	type bounds struct{ FirstByte, Total time.Duration }
	var got []bounds
	for _, d := range tab.Deployments(mod) {
		got = append(got, bounds{d.FirstByteTimeout, d.Timeout})
	}
	want := []bounds{{m, 10 * m}, {5 * time.Second, 10 * m}, {20 * m, 30 * m}, {30 * time.Second, 30 * time.Second}, {0, 0}, {m, m},
		{30 * m, 30 * m}, {10 * m, 10 * m}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
