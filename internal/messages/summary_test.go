package messages

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// summary reduces a Messages stream to what must match between streams
// that say the same thing in different pieces: the event names without
// pings and deltas, each block with its deltas concatenated, the stop
// reason and the output tokens, and whether it ended with an error.
func summary(t *testing.T, sse []byte) []string {
	t.Helper()
	var out []string
	var acc strings.Builder
	for _, ev := range bytes.Split(sse, []byte("\n\n")) {
		name, data, ok := strings.Cut(string(ev), "\ndata: ")
		name = strings.TrimPrefix(name, "event: ")
		switch {
		case strings.HasPrefix(name, "error"):
			out = append(out, "error")
			continue
		case !ok || name == "ping" || name == "content_block_delta" && data == "":
			continue
		}
		d := gjson.Parse(data)
		switch name {
		case "content_block_start":
			acc.Reset()
			out = append(out, name+" "+d.Get("content_block").Raw)
		case "content_block_delta":
			for _, k := range []string{"delta.text", "delta.partial_json", "delta.thinking"} {
				acc.WriteString(d.Get(k).Str)
			}
			if s := d.Get("delta.signature"); s.Exists() {
				out = append(out, "signature "+s.Str)
			}
		case "content_block_stop":
			out = append(out, "content "+acc.String(), name)
		case "message_start":
			out = append(out, name+" "+d.Get("message.model").Str)
		case "message_delta":
			out = append(out, name+" "+d.Get("delta.stop_reason").Str+" "+d.Get("usage.output_tokens").Raw)
		default:
			out = append(out, name)
		}
	}
	return out
}
