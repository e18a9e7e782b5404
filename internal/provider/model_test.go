package provider

import (
	"testing"

	"github.com/tidwall/gjson"
)

func TestAnswerModel(t *testing.T) {
	tests := []struct{ asked, answered, want string }{
		{"gpt-4o", "gpt-4o", "gpt-4o"},
		{"gpt-4o", "gpt-4o-2024-08-06", "gpt-4o-2024-08-06"},
		{"claude-sonnet-4-5", "claude-sonnet-4-5-20250929", "claude-sonnet-4-5-20250929"},
		{"gpt-3.5-turbo", "gpt-3.5-turbo-0125", "gpt-3.5-turbo-0125"},
		{"gpt-4o", "gpt-4o-mini", "gpt-4o"},
		{"gpt-4o", "gpt-4o-mini-2024-07-18", "gpt-4o"},
		{"gpt-4o", "gpt-4o-", "gpt-4o"},
		{"gpt-4o", "gpt-4o2", "gpt-4o"},
		{"llama-3.1-8b", "meta-llama/Llama-3.1-8B-Instruct", "llama-3.1-8b"},
		{"x", "", "x"},
	}
	for _, tt := range tests {
		r := &Request{Model: tt.asked}
		if got := r.AnswerModel(tt.answered); got != tt.want {
			t.Errorf("AnswerModel(%q) for %q = %q, want %q", tt.answered, tt.asked, got, tt.want)
		}
	}
}

func TestNameModel(t *testing.T) {
	r := &Request{Model: "gpt-4o"}
	same := []byte(`{"model":"gpt-4o-2024-08-06","x":1}`)
	if got := r.NameModel(same, "model", gjson.GetBytes(same, "model")); &got[0] != &same[0] {
		t.Errorf("copied an answer that names the model: %s", got)
	}
	other := []byte(`{"response":{"model":"gpt-4o-mini"},"x":1}`)
	if got := string(r.NameModel(other, "response.model", gjson.GetBytes(other, "response.model"))); got != `{"response":{"model":"gpt-4o"},"x":1}` {
		t.Errorf("NameModel = %s", got)
	}
	none := []byte(`{"x":1}`)
	if got := string(r.NameModel(none, "model", gjson.GetBytes(none, "model"))); got != `{"x":1}` {
		t.Errorf("NameModel without a model = %s", got)
	}
}
