package fakeopenai

import (
	"net/http"
	"slices"
	"strings"
)

// triggers are the magic words (after "fake:") that make the fake fail on
// purpose. They are read from the last user message, the prompt, or the
// first embeddings input.
var triggers = []string{
	"error:400", "error:401", "error:403", "error:404", "error:429", "error:quota",
	"error:500", "error:503", "error:529",
	"midstream-error", // streams only: two chunks, then an error event and no [DONE]
	"midstream-hang",  // chat streams only: two chunks, then nothing until the client goes away
	"hang",            // send nothing until the client goes away
	"close",           // drop the connection without a response
}

// findTrigger returns the first trigger in text, without its "fake:"
// prefix, or "".
func findTrigger(text string) string {
	for {
		i := strings.Index(text, "fake:")
		if i < 0 {
			return ""
		}
		text = text[i+len("fake:"):]
		end := 0
		for end < len(text) && isTriggerByte(text[end]) {
			end++
		}
		if t := text[:end]; slices.Contains(triggers, t) {
			return t
		}
	}
}

func isTriggerByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == ':' || c == '-'
}

// trigger answers a request carrying trigger t (other than the midstream ones).
func (c *call) trigger(t, model string) {
	switch t {
	case "hang":
		<-c.r.Context().Done()
	case "close":
		conn, _, err := http.NewResponseController(c.w).Hijack()
		if err != nil {
			// HTTP/2 or a recorder: aborting is the closest thing.
			panic(http.ErrAbortHandler)
		}
		conn.Close()
	default:
		c.fail(triggerError(strings.TrimPrefix(t, "error:"), model))
	}
}
