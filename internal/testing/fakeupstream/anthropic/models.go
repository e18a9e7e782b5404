package fakeanthropic

import (
	"strconv"
	"strings"
)

// models are the catalogue's Claude IDs (every anthropic row of the shared
// models.csv) with their output limits. Any "claude-fake-*" ID is served
// too, with fakeMaxOutput.
var models = map[string]int{
	"claude-3-haiku-20240307":    4096,
	"claude-3-opus-20240229":     4096,
	"claude-3-5-sonnet-20240620": 8192,
	"claude-3-5-sonnet-20241022": 8192,
	"claude-3-5-haiku-20241022":  8192,
	"claude-3-7-sonnet-20250219": 64000,
	"claude-sonnet-4-20250514":   64000,
	"claude-opus-4-20250514":     32000,
	"claude-opus-4-1-20250805":   32000,
	"claude-opus-4-1":            32000,
	"claude-sonnet-4-5-20250929": 64000,
	"claude-sonnet-4-5":          64000,
	"claude-haiku-4-5-20251001":  64000,
	"claude-haiku-4-5":           64000,
	"claude-opus-4-5-20251101":   64000,
	"claude-opus-4-5":            64000,
	"claude-opus-4-6":            128000,
	"claude-sonnet-4-6":          64000,
	"claude-opus-4-7":            128000,
	"claude-sonnet-5":            128000,
	"claude-opus-5":              128000,
}

const fakeMaxOutput = 128000

// maxOutput returns the model's output limit, and false for a model the
// fake does not serve.
func maxOutput(model string) (int, bool) {
	if strings.HasPrefix(model, "claude-fake-") {
		return fakeMaxOutput, true
	}
	n, ok := models[model]
	return n, ok
}

// exclusiveSampling reports whether the model refuses temperature and
// top_p together: Claude 4.5 and later, Opus 4.1, and the fake models.
func exclusiveSampling(model string) bool {
	if strings.HasPrefix(model, "claude-fake-") || strings.HasPrefix(model, "claude-opus-4-1") {
		return true
	}
	major, minor := version(model)
	return major > 4 || major == 4 && minor >= 5
}

// version reads the model generation from an ID such as
// claude-3-5-sonnet-20241022 or claude-sonnet-4-5: the first one- or
// two-digit number, and the one right after it if any.
func version(model string) (major, minor int) {
	parts := strings.Split(model, "-")
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || len(p) > 2 {
			continue
		}
		if i+1 < len(parts) && len(parts[i+1]) <= 2 {
			minor, _ = strconv.Atoi(parts[i+1])
		}
		return n, minor
	}
	return 0, 0
}

// thinks reports whether the model thinks: Claude 3.7 and later, and the
// fake models.
func thinks(model string) bool {
	major, minor := version(model)
	return strings.HasPrefix(model, "claude-fake-") || major > 3 || major == 3 && minor >= 7
}

// budgeted reports whether the model takes thinking enabled with a
// budget: every thinking model before Claude 4.7.
func budgeted(model string) bool {
	major, minor := version(model)
	return strings.HasPrefix(model, "claude-fake-") || thinks(model) && (major < 4 || major == 4 && minor < 7)
}

// adaptive reports whether the model takes adaptive thinking: Claude 4.6
// and later.
func adaptive(model string) bool {
	major, minor := version(model)
	return strings.HasPrefix(model, "claude-fake-") || major > 4 || major == 4 && minor >= 6
}

// effortSteered reports whether the model takes output_config.effort:
// Claude Opus 4.5 and the adaptive models.
func effortSteered(model string) bool {
	return adaptive(model) || strings.HasPrefix(model, "claude-opus-4-5")
}

// structured reports whether the model takes output_config.format:
// Claude 4.5 and later (Opus 4.1 not).
func structured(model string) bool {
	major, minor := version(model)
	return strings.HasPrefix(model, "claude-fake-") || major > 4 || major == 4 && minor >= 5
}
