package catalog

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// today is the date the built-in catalogue was checked against.
var today = day("2026-11-22")

func day(s string) time.Time {
	t, err := time.Parse(dateLayout, s)
	if err != nil {
		panic(err)
	}
	return t
}

func builtin(t *testing.T) *Catalog {
	t.Helper()
	c, err := Builtin()
	if err != nil {
		t.Fatalf("Builtin: %v", err)
	}
	return c
}

func TestBuiltinCounts(t *testing.T) {
	c := builtin(t)
	modes := map[Mode]int{}
	families := map[string]int{}
	var retired []string
	for _, m := range c.All() {
		modes[m.Mode]++
		families[m.Family]++
		if m.Retired(today) {
			retired = append(retired, m.ID)
		}
	}
	if got := modes[ModeChat] + modes[ModeCompletion]; got < 50 {
		t.Errorf("chat and completion models = %d, want at least 50", got)
	}
	wantModes := map[Mode]int{ModeChat: 77, ModeCompletion: 3, ModeEmbedding: 5}
	if diff := cmp.Diff(wantModes, modes); diff != "" {
		t.Errorf("models per mode (-want +got):\n%s", diff)
	}
	wantFamilies := map[string]int{"openai": 36, "anthropic": 21, "google": 16, "meta": 12}
	if diff := cmp.Diff(wantFamilies, families); diff != "" {
		t.Errorf("models per family (-want +got):\n%s", diff)
	}
	wantRetired := []string{
		"gpt-4o-2024-05-13", "gpt-4.1-nano", "gpt-4-turbo", "gpt-4-turbo-2024-04-09", "gpt-4",
		"gpt-3.5-turbo", "gpt-3.5-turbo-0125", "o1", "o1-mini", "o3-mini", "o4-mini",
		"claude-3-opus-20240229", "claude-3-5-sonnet-20240620",
		"claude-3-5-sonnet-20241022", "claude-3-5-haiku-20241022", "claude-3-7-sonnet-20250219",
		"claude-sonnet-4-20250514", "claude-opus-4-20250514", "claude-opus-4-1-20250805", "claude-opus-4-1",
		"gemini-1.5-pro", "gemini-1.5-flash", "gemini-1.5-flash-8b", "gemini-2.0-flash",
		"gemini-2.0-flash-001", "gemini-2.0-flash-lite", "gemini-2.0-flash-lite-001", "text-embedding-004",
	}
	if diff := cmp.Diff(wantRetired, retired); diff != "" {
		t.Errorf("retired on %s (-want +got):\n%s", today.Format(dateLayout), diff)
	}
}

func TestBuiltinEmbeddings(t *testing.T) {
	c := builtin(t)
	for id, dims := range map[string]int{
		"text-embedding-3-small": 1536,
		"text-embedding-3-large": 3072,
		"text-embedding-ada-002": 1536,
	} {
		m, ok := c.Lookup(id)
		if !ok {
			t.Errorf("Lookup(%q): not found", id)
			continue
		}
		if m.Mode != ModeEmbedding || m.EmbeddingDims != dims || m.Family != "openai" || m.OutputPrice != 0 {
			t.Errorf("%s: mode %s, dims %d, family %s, output price %v; want embedding, %d, openai, 0",
				id, m.Mode, m.EmbeddingDims, m.Family, m.OutputPrice, dims)
		}
	}
}

// snapshotDate matches a date at the end of a model ID: -2024-08-06 or
// -20240307.
var snapshotDate = regexp.MustCompile(`-(\d{4})-?(\d{2})-?(\d{2})$`)

func TestBuiltinRows(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range builtin(t).All() {
		if seen[m.ID] {
			t.Errorf("%s: duplicate id", m.ID)
		}
		seen[m.ID] = true
		if m.UpstreamID == "" || m.Provider == "" {
			t.Errorf("%s: empty upstream_id or provider", m.ID)
		}
		want := []Deployment{{Provider: m.Provider, UpstreamID: m.UpstreamID}}
		if diff := cmp.Diff(want, m.Deployments); diff != "" {
			t.Errorf("%s: deployments (-want +got):\n%s", m.ID, diff)
		}
		if m.Created.After(today) {
			t.Errorf("%s: created %v is after %v", m.ID, m.Created, today)
		}
		if s := snapshotDate.FindStringSubmatch(m.ID); s != nil {
			if got, want := m.Created.Format(dateLayout), s[1]+"-"+s[2]+"-"+s[3]; got != want {
				t.Errorf("%s: created %s, want the snapshot date %s", m.ID, got, want)
			}
		}
	}
}

func TestLookup(t *testing.T) {
	c := builtin(t)
	tests := []struct {
		id      string
		ok      bool
		ownedBy string
	}{
		{"gpt-4o", true, "openai"},
		{"claude-haiku-4-5", true, "anthropic"},
		{"gemini-2.5-flash-lite", true, "google"},
		{"llama-3.3-70b-instruct", true, "meta"},
		{"GPT-4o", false, ""},
		{"gpt-4o ", false, ""},
		{"", false, ""},
	}
	for _, tt := range tests {
		m, ok := c.Lookup(tt.id)
		if ok != tt.ok {
			t.Errorf("Lookup(%q) found = %v, want %v", tt.id, ok, tt.ok)
			continue
		}
		if ok && m.OwnedBy() != tt.ownedBy {
			t.Errorf("Lookup(%q).OwnedBy() = %q, want %q", tt.id, m.OwnedBy(), tt.ownedBy)
		}
	}
}

// Facts from models.md, "Deprecated and retired", and the rows' notes.
func TestLifecycle(t *testing.T) {
	c := builtin(t)
	tests := []struct {
		id          string
		now         time.Time
		retired     bool
		underNotice bool
		sunset      string // "" = none
		replacement string
	}{
		{"gpt-3.5-turbo", today, true, false, "2026-10-23", "gpt-5.6-terra"},
		{"gpt-4o-2024-05-13", today, true, false, "2026-10-23", "gpt-5.6-sol"},
		{"gpt-4o", today, false, true, "2027-01-14", "gpt-6-luna"},
		{"gpt-4o", day("2027-01-14"), true, false, "2027-01-14", "gpt-6-luna"},
		{"gpt-5", today, false, true, "2026-12-11", "gpt-6.1-sol"},
		{"gpt-5.1", today, false, true, "2027-04-01", ""},
		{"gpt-5.5", today, false, false, "", ""},
		{"gpt-3.5-turbo-instruct", today, false, false, "", ""},
		{"o1-mini", today, true, false, "2025-10-27", ""},
		{"claude-sonnet-4-5", today, false, true, "2026-11-30", "claude-sonnet-5-5"},
		{"claude-sonnet-4-5", day("2026-11-29").Add(24*time.Hour - time.Nanosecond), false, true, "2026-11-30", "claude-sonnet-5-5"},
		{"claude-sonnet-4-5", day("2026-11-30"), true, false, "2026-11-30", "claude-sonnet-5-5"},
		{"claude-sonnet-4-5-20250929", day("2026-11-30"), true, false, "2026-11-30", "claude-sonnet-5-5"},
		{"claude-3-haiku-20240307", today, false, false, "", ""}, // models.md: no retirement found
		{"claude-3-7-sonnet-20250219", day("2025-10-27"), false, true, "2026-02-19", ""},
		{"claude-3-7-sonnet-20250219", day("2026-02-19"), true, false, "2026-02-19", ""},
		{"claude-3-opus-20240229", today, true, false, "2026-01-05", ""},
		{"claude-opus-4-1", today, true, false, "2026-08-05", "claude-opus-4-8"},
		{"claude-opus-5", today, false, false, "", ""},
		{"gemini-1.5-pro", today, true, false, "2025-09-29", ""},
		{"gemini-2.0-flash", today, true, false, "2026-06-01", "gemini-2.5-flash"},
		{"gemini-2.5-pro", today, false, true, "2026-12-01", "gemini-3.8-flash"},
		{"gemini-2.5-flash-lite", today, false, false, "", ""},
		{"text-embedding-004", today, true, false, "2026-01-14", "gemini-embedding-001"},
		{"llama-3.3-70b-instruct", today, false, false, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.id+"@"+tt.now.Format(time.RFC3339Nano), func(t *testing.T) {
			m, ok := c.Lookup(tt.id)
			if !ok {
				t.Fatalf("Lookup(%q): not found", tt.id)
			}
			if got := m.Retired(tt.now); got != tt.retired {
				t.Errorf("Retired = %v, want %v", got, tt.retired)
			}
			if got := m.UnderNotice(tt.now); got != tt.underNotice {
				t.Errorf("UnderNotice = %v, want %v", got, tt.underNotice)
			}
			sunset := ""
			if !m.SunsetOn.IsZero() {
				sunset = m.SunsetOn.Format(dateLayout)
			}
			if sunset != tt.sunset || m.Replacement != tt.replacement {
				t.Errorf("sunset %q, replacement %q; want %q, %q", sunset, m.Replacement, tt.sunset, tt.replacement)
			}
		})
	}
}

func TestParse(t *testing.T) {
	in := strings.Join(header, ",") + "\n" +
		"m-chat,meta,groq,org/m-chat,chat,0.0375,0.15,131072,,true,false,,2024-12-06,2026-01-02,2026-03-01,m-next,0.01,131072,0.075,0.3,0.02,budget,true\n" +
		"m-embed,openai,openai,m-embed,embedding,0.02,,8191,,false,false,1536,,,,,,,,,,,false\n"
	c, err := Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []*Model{{
		ID: "m-chat", Family: "meta", UpstreamID: "org/m-chat", Provider: "groq", Mode: ModeChat,
		InputPrice: 37_500, OutputPrice: 150_000, CachedInputPrice: 10_000, ContextWindow: 131072, Functions: true,
		LongContext: LongContext{Above: 131072, InputPrice: 75_000, OutputPrice: 300_000, CachedInputPrice: 20_000},
		Created:     day("2024-12-06"), DeprecatedOn: day("2026-01-02"), SunsetOn: day("2026-03-01"),
		Replacement: "m-next", Deployments: []Deployment{{Provider: "groq", UpstreamID: "org/m-chat"}},
		Reasoning: ReasoningBudget, StructuredOutputs: true,
	}, {
		ID: "m-embed", Family: "openai", UpstreamID: "m-embed", Provider: "openai", Mode: ModeEmbedding,
		InputPrice: 20_000, ContextWindow: 8191, EmbeddingDims: 1536,
		Deployments: []Deployment{{Provider: "openai", UpstreamID: "m-embed"}},
	}}
	if diff := cmp.Diff(want, c.All()); diff != "" {
		t.Errorf("Parse (-want +got):\n%s", diff)
	}
}

func TestParseErrors(t *testing.T) {
	hdr := strings.Join(header, ",") + "\n"
	good := "m1,openai,openai,m1,chat,1,2,,,true,false,,,,,,,,,,,,false\n"
	// row returns good with cells set: column index (0-based), value, ...
	row := func(colValue ...any) string {
		cells := strings.Split(strings.TrimSuffix(good, "\n"), ",")
		for i := 0; i < len(colValue); i += 2 {
			cells[colValue[i].(int)] = colValue[i+1].(string)
		}
		return strings.Join(cells, ",") + "\n"
	}
	embedding := "e1,openai,openai,e1,embedding,1,,,,false,false,,,,,,,,,,,,false\n"
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", "line 1: missing header"},
		{"header", strings.Replace(hdr, "mode", "kind", 1), `line 1, column 5 (mode): header is "kind", want "mode"`},
		{"field count", hdr + "m1,openai\n", "record on line 2: wrong number of fields"},
		{"empty id", hdr + row(colID, ""), "line 2, column 1 (id): required"},
		{"id with space", hdr + row(colID, "m 1"), "line 2, column 1 (id): \"m 1\" contains white space"},
		{"family", hdr + row(colFamily, "mistral"), "line 2, column 2 (family): \"mistral\" is not one of"},
		{"provider", hdr + row(colProvider, "azure"), "line 2, column 3 (provider):"},
		{"upstream", hdr + row(colUpstreamID, ""), "line 2, column 4 (upstream_id): required"},
		{"mode", hdr + row(colMode, "image"), "line 2, column 5 (mode): \"image\" is not one of chat, completion, embedding"},
		{"price decimals", hdr + row(colInputPrice, "0.1234567"), "line 2, column 6 (input_usd_per_mtok): price \"0.1234567\" has more than 6 decimal places"},
		{"input required", hdr + row(colInputPrice, ""), "line 2, column 6 (input_usd_per_mtok): required"},
		{"negative price", hdr + row(colOutputPrice, "-2"), "line 2, column 7 (output_usd_per_mtok): price \"-2\" is negative"},
		{"output required", hdr + row(colOutputPrice, ""), "line 2, column 7 (output_usd_per_mtok): required for chat models"},
		{"int", hdr + row(colContextWindow, "128k"), "line 2, column 8 (context_window): \"128k\" is not a positive integer"},
		{"zero int", hdr + row(colMaxOutput, "0"), "line 2, column 9 (max_output_tokens): \"0\" is not a positive integer"},
		{"bool", hdr + row(colFunctions, "yes"), "line 2, column 10 (functions): \"yes\" is not true or false"},
		{"empty bool", hdr + row(colVision, ""), "line 2, column 11 (vision): \"\" is not true or false"},
		{"dims on chat", hdr + row(colEmbeddingDims, "768"), "line 2, column 12 (embedding_dimensions): must be empty for chat models"},
		{"dims missing", hdr + embedding, "line 2, column 12 (embedding_dimensions): required for embedding models"},
		{"date", hdr + row(colCreated, "2026-13-01"), "line 2, column 13 (created): \"2026-13-01\" is not a date (YYYY-MM-DD)"},
		{"sunset before deprecation", hdr + row(colDeprecatedOn, "2026-05-01", colSunsetOn, "2026-04-01"), "line 2, column 15 (sunset_on): before deprecated_on"},
		{"self replacement", hdr + row(colReplacement, "m1"), "line 2, column 16 (replacement): a model cannot replace itself"},
		{"cached price", hdr + row(colCachedInputPrice, "0.5x"), "line 2, column 17 (cached_input_usd_per_mtok): price \"0.5x\" is not a decimal"},
		{"cached above input", hdr + row(colCachedInputPrice, "1.5"), "line 2, column 17 (cached_input_usd_per_mtok): above the input price"},
		{"cached on embedding", hdr + strings.Replace(embedding, ",,,,,,,,,,,,false\n", ",1536,,,,,0.5,,,,,,false\n", 1), "line 2, column 17 (cached_input_usd_per_mtok): must be empty for embedding models"},
		{"long prices without threshold", hdr + row(colLongInputPrice, "2", colLongOutputPrice, "4"), "line 2, column 18 (long_context_above_tokens): required with long-context prices"},
		{"long threshold without input", hdr + row(colLongAbove, "200000", colLongOutputPrice, "4"), "line 2, column 19 (long_input_usd_per_mtok): required with long_context_above_tokens"},
		{"long threshold without output", hdr + row(colLongAbove, "200000", colLongInputPrice, "2"), "line 2, column 20 (long_output_usd_per_mtok): required with long_context_above_tokens"},
		{"long cached above long input", hdr + row(colLongAbove, "200000", colLongInputPrice, "2", colLongOutputPrice, "4", colLongCachedPrice, "3"), "line 2, column 21 (long_cached_input_usd_per_mtok): above the long-context input price"},
		{"long threshold not a count", hdr + row(colLongAbove, "200k"), "line 2, column 18 (long_context_above_tokens): \"200k\" is not a positive integer"},
		{"reasoning", hdr + row(colReasoning, "deep"), "line 2, column 22 (reasoning): \"deep\" is not one of"},
		{"reasoning on embedding", hdr + strings.Replace(embedding, ",,,,,,,,,,,,false\n", ",1536,,,,,,,,,,budget,false\n", 1), "line 2, column 22 (reasoning): must be empty for embedding models"},
		{"structured outputs", hdr + row(colStructuredOutputs, ""), "line 2, column 23 (structured_outputs): \"\" is not true or false"},
		{"second row", hdr + good + row(colMode, "Chat"), "line 3, column 5 (mode):"},
		{"duplicate", hdr + good + good, "line 3, column 1 (id): duplicate id \"m1\" (first on line 2)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse(strings.NewReader(tt.in))
			if err == nil {
				t.Fatalf("Parse = %d models, want error %q", len(c.All()), tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse error = %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestParsePrice(t *testing.T) {
	tests := []struct {
		in      string
		want    Price
		wantErr string // "" = no error
	}{
		{"0.0375", 37_500, ""},
		{"10", 10_000_000, ""},
		{"0.02", 20_000, ""},
		{"2.5", 2_500_000, ""},
		{"0", 0, ""},
		{"0.000001", 1, ""},
		{"22.50", 22_500_000, ""},
		{"007.1", 7_100_000, ""},
		{"9223372036854.775807", 9223372036854775807, ""},
		{"9223372036855", 0, "too large"},
		{"99999999999999999999", 0, "too large"},
		{"0.0000001", 0, "more than 6 decimal places"},
		{"-1", 0, "negative"},
		{"-0.5", 0, "negative"},
		{"", 0, "not a decimal number"},
		{".5", 0, "not a decimal number"},
		{"5.", 0, "not a decimal number"},
		{"+5", 0, "not a decimal number"},
		{"1e3", 0, "not a decimal number"},
		{"1,5", 0, "not a decimal number"},
		{" 1", 0, "not a decimal number"},
		{"1.2.3", 0, "not a decimal number"},
		{"$2", 0, "not a decimal number"},
		{"NaN", 0, "not a decimal number"},
	}
	for _, tt := range tests {
		got, err := ParsePrice(tt.in)
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("ParsePrice(%q): %v", tt.in, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("ParsePrice(%q) = %d, %v; want error containing %q", tt.in, got, err, tt.wantErr)
		case got != tt.want:
			t.Errorf("ParsePrice(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestPriceString(t *testing.T) {
	tests := []struct {
		p    Price
		want string
	}{
		{37_500, "0.0375"},
		{10_000_000, "10"},
		{20_000, "0.02"},
		{22_500_000, "22.5"},
		{0, "0"},
		{1, "0.000001"},
		{-2_500_000, "-2.5"},
		{-9223372036854775808, "-9223372036854.775808"},
	}
	for _, tt := range tests {
		if got := tt.p.String(); got != tt.want {
			t.Errorf("Price(%d).String() = %q, want %q", int64(tt.p), got, tt.want)
		}
	}
}

func FuzzParsePrice(f *testing.F) {
	for _, s := range []string{"0.0375", "10", "0.02", "-1", "1e3", "9223372036854.775807"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePrice(s)
		if err != nil {
			return
		}
		if p < 0 {
			t.Fatalf("ParsePrice(%q) = %d, negative", s, p)
		}
		back, err := ParsePrice(p.String())
		if err != nil || back != p {
			t.Fatalf("ParsePrice(%q) = %d; String %q parses back as %d, %v", s, p, p.String(), back, err)
		}
	})
}

func TestBuiltinPricesRoundTrip(t *testing.T) {
	for _, m := range builtin(t).All() {
		for _, p := range []Price{m.InputPrice, m.OutputPrice} {
			if back, err := ParsePrice(p.String()); err != nil || back != p {
				t.Errorf("%s: price %d formats as %q, parses back as %d, %v", m.ID, p, p.String(), back, err)
			}
		}
	}
	m, _ := builtin(t).Lookup("gemini-1.5-flash-8b")
	if m.InputPrice != 37_500 || m.OutputPrice != 150_000 {
		t.Errorf("gemini-1.5-flash-8b prices = %v/%v, want 0.0375/0.15", m.InputPrice, m.OutputPrice)
	}
}

func TestAllIsACopy(t *testing.T) {
	c := builtin(t)
	all := c.All()
	all[0] = nil
	if slices.Contains(c.All(), nil) {
		t.Error("changing the slice from All changed the catalogue")
	}
}
