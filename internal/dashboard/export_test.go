package dashboard

import "time"

// SetThrottlesForTest replaces the sign-in limits, so that a test can
// reach them in a few (slow, argon2id) attempts.
func SetThrottlesForTest(d *Dashboard, perEmail, perAddr int) {
	d.byEmail = newThrottle(perEmail, 15*time.Minute, 100)
	d.byAddr = newThrottle(perAddr, 15*time.Minute, 100)
}
