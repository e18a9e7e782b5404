package store_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/usd"
)

func TestWriteUsageCSV(t *testing.T) {
	tests := []struct {
		name string
		by   string
		rows []store.UsageRow
		want string
	}{{
		name: "day",
		by:   "day",
		rows: []store.UsageRow{
			{Day: "2026-11-03", Requests: 2, PromptTokens: 200, CompletionTokens: 100, TotalTokens: 300, Cost: 750*usd.Micro + 1},
			{Day: "2026-11-05", Requests: 1, Errors: 1, PromptTokens: 10, TotalTokens: 10, Cost: usd.USD + 25*usd.Cent},
		},
		want: "day,requests,errors,prompt_tokens,completion_tokens,total_tokens,cost_usd\n" +
			"2026-11-03,2,0,200,100,300,0.000750000001\n" +
			"2026-11-05,1,1,10,0,10,1.25\n",
	}, {
		name: "model",
		by:   "model",
		rows: []store.UsageRow{
			{Model: "claude-3-5-haiku", Requests: 1, Errors: 1, PromptTokens: 10, TotalTokens: 10, Cost: usd.USD + 25*usd.Cent},
			{Model: "gpt-4o", Requests: 2, PromptTokens: 3000, CompletionTokens: 1500, TotalTokens: 4500, Cost: 5*usd.USD + 50*usd.Cent},
		},
		want: "model,requests,errors,prompt_tokens,completion_tokens,total_tokens,cost_usd\n" +
			"claude-3-5-haiku,1,1,10,0,10,1.25\n" +
			"gpt-4o,2,0,3000,1500,4500,5.50\n",
	}, {
		name: "key",
		by:   "key",
		rows: []store.UsageRow{
			{KeyID: "key_1", KeyName: "ci", Requests: 3, PromptTokens: 1200, CompletionTokens: 600, TotalTokens: 1800, Cost: 2 * usd.USD},
			{KeyID: "key_gone", Requests: 1, Cost: 0},
		},
		want: "key_id,key_name,requests,errors,prompt_tokens,completion_tokens,total_tokens,cost_usd\n" +
			"key_1,ci,3,0,1200,600,1800,2.00\n" +
			"key_gone,,1,0,0,0,0,0.00\n",
	}, {
		name: "key names to quote",
		by:   "key",
		rows: []store.UsageRow{
			{KeyID: "key_1", KeyName: "ci, nightly", Requests: 1, Cost: usd.Cent},
			{KeyID: "key_2", KeyName: `the "bot"`, Requests: 1, Cost: usd.Cent},
			{KeyID: "key_3", KeyName: "two\nlines", Requests: 1, Cost: usd.Cent},
		},
		want: "key_id,key_name,requests,errors,prompt_tokens,completion_tokens,total_tokens,cost_usd\n" +
			"key_1,\"ci, nightly\",1,0,0,0,0,0.01\n" +
			"key_2,\"the \"\"bot\"\"\",1,0,0,0,0,0.01\n" +
			"key_3,\"two\nlines\",1,0,0,0,0,0.01\n",
	}, {
		name: "empty by day",
		by:   "day",
		want: "day,requests,errors,prompt_tokens,completion_tokens,total_tokens,cost_usd\n",
	}, {
		name: "empty by model",
		by:   "model",
		want: "model,requests,errors,prompt_tokens,completion_tokens,total_tokens,cost_usd\n",
	}, {
		name: "empty by key",
		by:   "key",
		want: "key_id,key_name,requests,errors,prompt_tokens,completion_tokens,total_tokens,cost_usd\n",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := store.WriteUsageCSV(&b, tt.by, tt.rows); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, b.String()); diff != "" {
				t.Errorf("WriteUsageCSV(%q) mismatch (-want +got):\n%s", tt.by, diff)
			}
		})
	}
}

func TestWriteUsageCSVErrors(t *testing.T) {
	var b strings.Builder
	if err := store.WriteUsageCSV(&b, "week", nil); err == nil || b.Len() != 0 {
		t.Errorf("by week: err %v, wrote %q; want an error and nothing written", err, b.String())
	}
	errFull := errors.New("disk full")
	err := store.WriteUsageCSV(failingWriter{errFull}, "day", []store.UsageRow{{Day: "2026-11-03"}})
	if !errors.Is(err, errFull) {
		t.Errorf("failing writer: err %v, want %v", err, errFull)
	}
}

// failingWriter fails every write with err.
type failingWriter struct{ err error }

func (w failingWriter) Write([]byte) (int, error) { return 0, w.err }
