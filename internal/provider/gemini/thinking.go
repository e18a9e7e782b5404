package gemini

import (
	"slices"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/provider"
)

// thinkingConfig is generationConfig.thinkingConfig. Budget and level are
// never both set: Gemini refuses that.
type thinkingConfig struct {
	IncludeThoughts bool   `json:"includeThoughts,omitempty"`
	ThinkingBudget  *int   `json:"thinkingBudget,omitempty"`
	ThinkingLevel   string `json:"thinkingLevel,omitempty"`
}

// efforts are the values of the reasoning_effort extension, lowest first.
var efforts = []string{"none", "minimal", "low", "medium", "high", "xhigh", "max"}

// tier is a Gemini model's size, which bounds its thinking.
type tier uint8

const (
	tierFlash tier = iota
	tierLite
	tierPro
)

// tierOf reads the tier from the upstream model ID: "flash-lite" is Lite,
// "pro" Pro, anything else Flash.
func tierOf(model string) tier {
	switch {
	case strings.Contains(model, "flash-lite"):
		return tierLite
	case strings.Contains(model, "-pro"):
		return tierPro
	}
	return tierFlash
}

// thinking maps reasoning_effort to thinkingConfig by how the model is
// steered (provider.Request.Reasoning): a thinkingBudget for Gemini 2.5, a
// thinkingLevel for Gemini 3. nil when the client gave no effort or the
// model cannot be steered; an unknown effort is refused either way.
func thinking(root gjson.Result, r *provider.Request) (*thinkingConfig, error) {
	v := root.Get("reasoning_effort")
	if !present(v) {
		return nil, nil
	}
	if v.Type != gjson.String || !slices.Contains(efforts, v.Str) {
		return nil, refuse(codeInvalid, "reasoning_effort",
			"Expected one of %s, got %s.", strings.Join(efforts, ", "), v.Raw)
	}
	t := tierOf(r.UpstreamModel)
	tc := &thinkingConfig{IncludeThoughts: v.Str != "none"}
	switch r.Reasoning {
	case catalog.ReasoningBudget:
		n := thinkingBudget(v.Str, t)
		tc.ThinkingBudget = &n
	case catalog.ReasoningLevel:
		tc.ThinkingLevel = thinkingLevel(v.Str, t)
	default:
		return nil, nil // the model does not think, or cannot be steered
	}
	return tc, nil
}

// thinkingBudget is Gemini 2.5's budget for an effort: Flash thinks
// 0–24576 tokens, Flash-Lite 512–24576 (or 0), Pro 128–32768 and cannot
// stop thinking.
func thinkingBudget(effort string, t tier) int {
	switch effort {
	case "none":
		if t == tierPro {
			return 128
		}
		return 0
	case "minimal":
		if t == tierPro {
			return 128
		}
		return 512
	case "low":
		return 1024
	case "medium":
		return 8192
	}
	if t == tierPro {
		return 32768
	}
	return 24576
}

// thinkingLevel is Gemini 3's level for an effort: Pro models think at
// least "low", the others at least "minimal".
func thinkingLevel(effort string, t tier) string {
	switch effort {
	case "none", "minimal":
		if t == tierPro {
			return "low"
		}
		return "minimal"
	case "low", "medium":
		return effort
	}
	return "high"
}
