package dashboard

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/switchyard-gw/switchyard/internal/server"
)

// maxHeld bounds the sign-ins held by the throttle at once, across every
// email and address, so that holding them cannot exhaust the process.
const maxHeld = 256

// admitAttempt counts a sign-in attempt (or a check of the current
// password) against the email and the client's address, and holds it as
// long as their throttles say before the password is checked: below the
// limits not at all, past them a few seconds at most. It reports false
// when the attempt is not to be checked: refused with 429 (its turn is
// too far off, or maxHeld are held already; then it is not counted), or
// its client left while it was held.
func (d *Dashboard) admitAttempt(w http.ResponseWriter, r *http.Request, email, addr string) bool {
	now := d.now()
	hold, ok := d.byEmail.admit(email, now)
	if !ok {
		d.tooManyAttempts(w, r, hold)
		return false
	}
	addrHold, _ := d.byAddr.admit(addr, now) // not spaced: always admitted
	hold = max(hold, addrHold)
	if hold == 0 {
		return true
	}
	select {
	case d.held <- struct{}{}:
	default:
		d.byEmail.forgive(email)
		d.byAddr.forgive(addr)
		d.tooManyAttempts(w, r, hold)
		return false
	}
	defer func() { <-d.held }()
	if err := d.sleep(r.Context(), hold); err != nil {
		server.RecordFrom(r.Context()).Status = 499 // the client left: nothing to answer
		return false
	}
	return true
}

// tooManyAttempts answers 429 with the wait in Retry-After and in words.
func (d *Dashboard) tooManyAttempts(w http.ResponseWriter, r *http.Request, wait time.Duration) {
	secs := max(int64(math.Ceil(wait.Seconds())), 1)
	w.Header().Set("Retry-After", strconv.FormatInt(secs, 10))
	d.renderError(w, r, http.StatusTooManyRequests, "Too many attempts",
		fmt.Sprintf("There were too many attempts to sign in or sign up, for this account or from your network. "+
			"For your security, try again in %s.", waitText(secs)))
}

// waitText says a wait of secs seconds in words: seconds below a minute,
// else whole minutes, rounded up.
func waitText(secs int64) string {
	n, unit := secs, "second"
	if secs >= 60 {
		n, unit = (secs+59)/60, "minute"
	}
	if n != 1 {
		unit += "s"
	}
	return fmt.Sprintf("%d %s", n, unit)
}
