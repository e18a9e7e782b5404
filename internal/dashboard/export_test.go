package dashboard

import "time"

// SetThrottlesForTest replaces the sign-in limits, so that a test can
// reach them in a few (slow, argon2id) attempts.
func SetThrottlesForTest(d *Dashboard, perEmail, perAddr int) {
	d.byEmail = newThrottle(perEmail, 15*time.Minute, 100, true)
	d.byAddr = newThrottle(perAddr, 15*time.Minute, 100, false)
}

// SetMaxHeldForTest replaces how many sign-ins may be held at once.
func SetMaxHeldForTest(d *Dashboard, n int) { d.held = make(chan struct{}, n) }
