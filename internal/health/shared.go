package health

import "time"

// Shared carries failures and cooldowns between the replicas of a
// gateway. Its methods must not block the request that calls them: a
// backend queues its work and does it on its own goroutine, and its
// failures never fail a request (the Tracker's local state keeps
// deciding). Redis implements it.
type Shared interface {
	// Failed counts one failure of the deployment key across replicas and
	// then reports, through the failures function given to Attach, how
	// many all replicas counted within the last window.
	Failed(key string, window time.Duration)
	// Cool tells every replica, including those that start later while
	// it lasts, that a deployment cools down.
	Cool(c Cooldown)
	// Attach sets the functions the backend calls, from its own
	// goroutine, with shared failure counts and with the cooldowns that
	// other replicas decided or that were stored before this one started.
	Attach(failures func(key string, n int), cooled func(Cooldown))
}

// Cooldown is a deployment's cooldown as replicas exchange it: relative,
// so that clocks need not agree.
type Cooldown struct {
	Key    string
	Reason string        // a failure class, or ReasonFailures
	For    time.Duration // from when it was decided (or read back)
}
