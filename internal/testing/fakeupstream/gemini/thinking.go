package fakegemini

import (
	"slices"
	"strings"

	"github.com/tidwall/gjson"
)

// thinkingAt is where generationConfig.thinkingConfig's errors point.
const thinkingAt = "generation_config.thinking_config"

// checkThinking checks generationConfig.thinkingConfig as Gemini does:
// thinking only on models that think (2.5 and later), never both a budget
// and a level, a budget in the model's range, a level only on Gemini 3
// and one that model has. It sets how much the model thinks and whether
// the answer shows its thoughts.
func checkThinking(model string, tc gjson.Result, gen *generation) error {
	if thinks(model) {
		gen.thoughts = thoughtTokens
	}
	if !tc.Exists() {
		return nil
	}
	if err := fields(tc, thinkingAt, "thinkingBudget", "includeThoughts", "thinkingLevel"); err != nil {
		return err
	}
	budget, level, include := tc.Get("thinkingBudget"), tc.Get("thinkingLevel"), tc.Get("includeThoughts")
	switch {
	case !thinks(model):
		return invalid("Thinking is not supported for this model.")
	case budget.Exists() && level.Exists():
		return invalid("You can only set one of thinking budget and thinking level.")
	case include.Exists() && !include.IsBool():
		return badValue(thinkingAt+".include_thoughts", "expected a boolean")
	}
	if budget.Exists() {
		if err := checkBudget(model, budget); err != nil {
			return err
		}
		if budget.Int() == 0 {
			gen.thoughts = 0
		}
	}
	if level.Exists() {
		if err := checkLevel(model, level); err != nil {
			return err
		}
	}
	gen.includeThoughts = include.Bool() && gen.thoughts > 0
	return nil
}

// checkBudget: -1 (dynamic) or the model's range; 0 turns thinking off
// where the model allows it.
func checkBudget(model string, b gjson.Result) error {
	lo, hi, off := budgetRange(model)
	n, err := integer(b, thinkingAt+".thinking_budget", -1, 1<<31-1)
	switch {
	case err != nil:
		return err
	case n == -1 || (n == 0 && off) || (n >= int64(lo) && n <= int64(hi)):
		return nil
	}
	return invalid("The thinking budget %d is invalid. This model only supports thinking budgets in the range [%d, %d].", n, lo, hi)
}

// budgetRange is the budgets a model takes: 2.5 Pro 128–32768 (it cannot
// stop thinking), 2.5 Flash 0–24576, 2.5 Flash-Lite 512–24576 or 0;
// Gemini 3 still takes budgets, Pro from 128.
func budgetRange(model string) (lo, hi int, off bool) {
	pro, lite := strings.Contains(model, "-pro"), strings.Contains(model, "flash-lite")
	switch {
	case pro && needsSignature(model):
		return 128, 32768, false
	case needsSignature(model):
		return 0, 32768, true
	case pro:
		return 128, 32768, false
	case lite:
		return 512, 24576, true
	}
	return 0, 24576, true
}

// checkLevel: Gemini 3 only; Pro models have no "minimal". Gemini takes
// the enum's names in either case.
func checkLevel(model string, l gjson.Result) error {
	at := thinkingAt + ".thinking_level"
	if !needsSignature(model) {
		return invalid("Thinking level is not supported for this model. Use thinking budget instead.")
	}
	levels := []string{"minimal", "low", "medium", "high"}
	if strings.Contains(model, "-pro") {
		levels = levels[1:]
	}
	if l.Type != gjson.String || !slices.Contains(levels, strings.ToLower(l.Str)) {
		return badValue(at, "Invalid value "+l.Raw+" for this model; expected one of "+strings.Join(levels, ", "))
	}
	return nil
}

// thoughtText is the thought summary a model shows when asked to, in two
// pieces for streams.
func thoughtText(text string) []string {
	words := strings.Fields(text)
	if len(words) > 6 {
		words = words[:6]
	}
	return []string{"**Reading the request**\n", "The user wrote: " + strings.Join(words, " ")}
}
