package meter

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestAppendJSONMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", `quote " and \ backslash`, "tab\tnewline\n\x00\x1f", "héllo 日本", "bad \xff utf8", "</script>&"} {
		r := Record{ID: "usg_" + s, RequestID: s, Time: time.Date(2026, 11, 23, 1, 2, 3, 456789, time.FixedZone("X", 3600)),
			AccountID: "acct_a", KeyID: s, Endpoint: "chat.completions", Model: s, Provider: "openai", UpstreamModel: s,
			RequestedModel: s, Deployment: "openai/" + s, Attempts: 3,
			PromptTokens: 1, CompletionTokens: 2, TotalTokens: 3, CachedTokens: 4, Estimated: true, InputPrice: 5, CachedPrice: 10,
			OutputPrice: 6, PriceVersion: "prices-x", Cost: 7, Latency: 8 * time.Millisecond, TTFT: 9, Status: 499,
			ErrorType: s, Streamed: true, Cancelled: true}
		var got, want Record
		if err := json.Unmarshal(appendJSON(nil, &r), &got); err != nil {
			t.Fatalf("%q: %v\n%s", s, err, appendJSON(nil, &r))
		}
		ref, _ := json.Marshal(&r)
		json.Unmarshal(ref, &want)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%q: (-encoding/json +appendJSON)\n%s", s, diff)
		}
	}
}

// TestAppendJSONIsEncodingJSON: with strings of printable ASCII other
// than " \ < > &, which both write as they are, a line is encoding/json's
// own encoding of the record, byte for byte: the same fields in the same
// order, the zero ones tagged omitempty left out. (encoding/json escapes
// < > & too, and writes \b and \f by name where AppendString writes
// \u0008 and \u000c.)
func TestAppendJSONIsEncodingJSON(t *testing.T) {
	at := time.Date(2026, 11, 26, 11, 16, 3, 123456789, time.FixedZone("X", -5*3600))
	var printable []byte
	for c := byte(' '); c <= '~'; c++ {
		if !strings.ContainsRune(`"\<>&`, rune(c)) {
			printable = append(printable, c)
		}
	}
	p := string(printable)
	for _, r := range []Record{
		{},
		{ID: "usg_1", RequestID: "req_1", Time: at, AccountID: "acct_a", KeyID: "key_a", Endpoint: "chat.completions",
			Model: "gpt-4o-mini", Provider: "openai", UpstreamModel: "gpt-4o-mini-2024-07-18", PromptTokens: 12,
			CompletionTokens: 3, TotalTokens: 15, InputPrice: 150_000, CachedPrice: 75_000, OutputPrice: 600_000,
			PriceVersion: "2026-11-01", Cost: 3_600_000, Latency: 812345, Status: 200},
		{ID: "usg_2", Time: at.UTC(), RequestedModel: "fast", Deployment: "openai/gpt", Attempts: 2, CachedTokens: -1,
			Estimated: true, Cost: -5, TTFT: 1, Status: 499, ErrorType: "server_error", Streamed: true, Cancelled: true},
		{ID: p, RequestID: p, AccountID: p, KeyID: p, Endpoint: p, Model: p, Provider: p, UpstreamModel: p,
			RequestedModel: p, Deployment: p, PriceVersion: p, ErrorType: p},
	} {
		want, err := json.Marshal(&r)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendJSON(nil, &r); string(got) != string(want)+"\n" {
			t.Errorf("appendJSON\n%s\nencoding/json\n%s", got, want)
		}
		if got, want := appendProgressJSON(nil, &r), append(want[:len(want)-1], `,"open":true}`+"\n"...); string(got) != string(want) {
			t.Errorf("appendProgressJSON\n%s\nwant\n%s", got, want)
		}
	}
}

// TestAppendJSONOmitsEachZero checks each field tagged omitempty on its
// own: a record whose only non-zero field it is must be written as
// encoding/json writes it, so that a field left out or written under
// another field's test shows.
func TestAppendJSONOmitsEachZero(t *testing.T) {
	rt := reflect.TypeFor[Record]()
	n := 0
	for i := range rt.NumField() {
		f := rt.Field(i)
		if !strings.HasSuffix(f.Tag.Get("json"), ",omitempty") {
			continue
		}
		n++
		t.Run(f.Name, func(t *testing.T) {
			var r Record
			switch v := reflect.ValueOf(&r).Elem().Field(i); v.Kind() {
			case reflect.String:
				v.SetString("x")
			case reflect.Int, reflect.Int64:
				v.SetInt(7)
			case reflect.Bool:
				v.SetBool(true)
			default:
				t.Fatalf("no non-zero value for a %s", v.Kind())
			}
			want, err := json.Marshal(&r)
			if err != nil {
				t.Fatal(err)
			}
			if got := appendJSON(nil, &r); string(got) != string(want)+"\n" {
				t.Errorf("appendJSON\n%s\nencoding/json\n%s", got, want)
			}
		})
	}
	if n == 0 {
		t.Fatal("Record has no field tagged omitempty")
	}
}

// TestTornProgressLine: a progress line cut anywhere by a crash is
// skipped, and the stream's progress before it is the one recovered; a
// record after the cut still supersedes both.
func TestTornProgressLine(t *testing.T) {
	r := Record{ID: "usg_1", RequestID: "req_1", Time: time.Unix(1, 0).UTC(), Model: "m", PromptTokens: 5,
		CompletionTokens: 1, TotalTokens: 6, Status: 200, Estimated: true, Streamed: true, Cancelled: true}
	first := appendProgressJSON(nil, &r)
	r.CompletionTokens, r.TotalTokens = 40, 45
	later := appendProgressJSON(nil, &r)
	for cut := 1; cut < len(later)-1; cut++ { // later[:len-1] lacks only its newline: whole
		for _, after := range []string{"", "\n"} {
			journal := string(first) + string(later[:cut]) + after
			open := map[string]Record{}
			var recs []Record
			skipped, err := readSegment(strings.NewReader(journal), 10, func(b []Record) error {
				recs = append(recs, b...)
				return nil
			}, open)
			if err != nil || skipped != 1 || len(recs) != 0 || open["usg_1"].CompletionTokens != 1 {
				t.Fatalf("cut at %d%q: skipped %d, err %v, records %v, open %+v", cut, after, skipped, err, recs, open)
			}
		}
	}
}

func FuzzAppendJSON(f *testing.F) {
	f.Add("usg_1", "model", "\x00\"\\")
	f.Fuzz(func(t *testing.T, id, model, errType string) {
		r := Record{ID: id, Model: model, ErrorType: errType, Time: time.Unix(1, 2).UTC()}
		var got, want Record
		if err := json.Unmarshal(appendJSON(nil, &r), &got); err != nil {
			t.Fatalf("not JSON: %v", err)
		}
		ref, _ := json.Marshal(&r)
		json.Unmarshal(ref, &want)
		if !cmp.Equal(want, got) {
			t.Errorf("differs: %s", cmp.Diff(want, got))
		}
	})
}

func TestRecordPrice(t *testing.T) {
	for _, tt := range []struct {
		name string
		r    Record
		want int64
	}{
		{"no cache", Record{Endpoint: "chat.completions", PromptTokens: 1000, CompletionTokens: 100, InputPrice: 2_500_000, OutputPrice: 10_000_000, CachedPrice: 1_250_000},
			1000*2_500_000 + 100*10_000_000},
		{"cached part", Record{Endpoint: "chat.completions", PromptTokens: 1000, CachedTokens: 800, CompletionTokens: 100, InputPrice: 2_500_000, OutputPrice: 10_000_000, CachedPrice: 1_250_000},
			200*2_500_000 + 800*1_250_000 + 100*10_000_000},
		{"all cached", Record{Endpoint: "completions", PromptTokens: 1000, CachedTokens: 1000, InputPrice: 2_500_000, CachedPrice: 250_000},
			1000 * 250_000},
		{"more cached than prompt", Record{Endpoint: "chat.completions", PromptTokens: 10, CachedTokens: 50, InputPrice: 2_500_000, CachedPrice: 250_000},
			10 * 250_000},
		{"negative cached", Record{Endpoint: "chat.completions", PromptTokens: 10, CachedTokens: -5, InputPrice: 2_500_000, CachedPrice: 250_000},
			10 * 2_500_000},
		{"embeddings bill input only", Record{Endpoint: "embeddings", PromptTokens: 10, CompletionTokens: 99, InputPrice: 20_000, OutputPrice: 1_000_000},
			10 * 20_000},
	} {
		if got := tt.r.Price(); int64(got) != tt.want {
			t.Errorf("%s: Price() = %d, want %d", tt.name, got, tt.want)
		}
	}
}

func BenchmarkAppendJSON(b *testing.B) {
	r := Record{ID: "usg_01JDQ3Y1V6A4ZK2W9X8C7B5N3M", RequestID: "req_6f1c0d2e9a8b7c6d5e4f3a2b1c0d9e8f",
		Time: time.Date(2026, 11, 26, 11, 16, 3, 123456789, time.UTC), AccountID: "acct_01JDQ3X4M2", KeyID: "key_01JDQ3X5N7",
		Endpoint: "chat.completions", Model: "gpt-4o-mini", Provider: "openai", UpstreamModel: "gpt-4o-mini-2024-07-18",
		Deployment: "openai/gpt-4o-mini-2024-07-18", Attempts: 1, PromptTokens: 1234, CompletionTokens: 567, TotalTokens: 1801,
		InputPrice: 150_000, CachedPrice: 75_000, OutputPrice: 600_000, PriceVersion: "2026-11-01", Cost: 525_300_000,
		Latency: 812345, Status: 200}
	b.ReportAllocs()
	buf := make([]byte, 0, 1024)
	for b.Loop() {
		buf = appendJSON(buf[:0], &r)
	}
}
