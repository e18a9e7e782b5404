package fakeopenai

import (
	"net/http"
	"strings"

	"github.com/switchyard-gw/switchyard/internal/testing/fakeupstream"
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
func findTrigger(text string) string { return fakeupstream.FindTrigger(text, triggers) }

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
