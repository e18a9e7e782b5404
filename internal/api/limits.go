package api

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/switchyard-gw/switchyard/internal/limits"
)

// rateLimited is the 429 of a refused request: rate_limit_error, no code,
// with Retry-After in whole seconds and retry-after-ms.
func rateLimited(h http.Header, rf *limits.Refusal) *Error {
	unit := "requests per minute"
	if rf.Kind == "tokens" {
		unit = "tokens per minute"
	}
	used := rf.Limit - rf.Remaining
	e := &Error{Status: http.StatusTooManyRequests, Type: "rate_limit_error", NoCode: true}
	if rf.TooLarge {
		e.Message = fmt.Sprintf("Request too large for %s on %s %s: limit %d, requested %d. "+
			"Reduce the prompt or max_tokens; retrying will not help.", unit, rf.Scope, rf.ID, rf.Limit, rf.Cost)
		return e
	}
	secs := retrySeconds(rf.RetryAfter)
	e.RetryAfter = secs
	h.Set("retry-after-ms", strconv.FormatInt(int64((rf.RetryAfter+time.Millisecond-1)/time.Millisecond), 10))
	extra := ""
	if rf.Kind == "tokens" {
		extra = fmt.Sprintf(", requested %d", rf.Cost)
	}
	e.Message = fmt.Sprintf("Rate limit reached for %s on %s %s: limit %d, used %d%s. Try again in %ds.",
		unit, rf.Scope, rf.ID, rf.Limit, used, extra, secs)
	return e
}

// overBudget is the spec's 429 for an account limit: rate_limit_error and
// no code, with a message that says which limit and when it resets.
func overBudget(ob *limits.OverBudget, now time.Time) *Error {
	whose := "The account's"
	if ob.Scope == "key" {
		whose = "This API key's"
	}
	return &Error{Status: http.StatusTooManyRequests, Type: "rate_limit_error", NoCode: true,
		RetryAfter: max(int(ob.Reset.Sub(now)/time.Second)+1, 1),
		Message: fmt.Sprintf("%s monthly spend limit of %s was reached: %s spent in %s (UTC). "+
			"Requests resume on %s UTC, or as soon as the limit is raised.",
			whose, ob.Limit.Dollars(), ob.Spent.Dollars(), ob.Reset.AddDate(0, -1, 0).Format("January 2006"),
			ob.Reset.Format("2006-01-02"))}
}
