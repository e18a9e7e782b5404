package provider

import (
	"strings"

	"github.com/tidwall/gjson"
)

// PromptText joins the contents of OpenAI chat messages, one a line, for
// counting what an upstream that reports no usage was asked; n is the
// number of messages. It holds one copy of the text, sized up front, so
// counting a long prompt costs no multiple of the body (issue 13).
func PromptText(msgs gjson.Result) (text string, n int) {
	var b strings.Builder
	b.Grow(len(msgs.Raw))
	msgs.ForEach(func(_, m gjson.Result) bool {
		b.WriteString(m.Get("content").String())
		b.WriteByte('\n')
		n++
		return true
	})
	return b.String(), n
}
