// Package limits enforces request and token rate limits with the generic
// cell rate algorithm (GCRA), in process or shared through Redis.
//
// # The algorithm
//
// A Rate of Limit units per Period has an emission interval
// T = Period / Limit (integer nanoseconds, rounded down) and a burst
// tolerance tau = Limit × T, so a full bucket holds exactly Limit units.
// Each bucket stores a single number, its theoretical arrival time (TAT):
// the instant at which the bucket would be full again. A bucket with
// TAT ≤ now is full, which is why a missing bucket and an expired one
// are the same thing and idle buckets can simply be deleted.
//
// Let d = max(TAT − now, 0), the time still owed. Taking cost units
// needs d' = d + cost × T ≤ tau. If it fits, TAT becomes now + d' and
// the request is allowed; if not, nothing changes and the caller may
// retry after d' − tau. In a Decision,
//
//	Remaining  = floor((tau − d) / T)   units that fit now
//	ResetAfter = d                      until the bucket is full again
//	RetryAfter = d + cost×T − tau       when refused; 0 when allowed
//
// A cost greater than Limit can never fit: Take refuses it with
// RetryAfter 0, and the caller should report the request as too large
// rather than ask the client to retry.
//
// Adjust adds delta × T to d without a check, clamped below at 0 (giving
// back never makes a bucket fuller than full) and above at MaxPeriod.
// It corrects a token reservation to real usage: Take the estimated
// tokens before the upstream call, then Adjust by real − estimate.
//
// All arithmetic is on int64 nanoseconds, so a check is exact: with the
// clock frozen, any number of concurrent callers are admitted exactly
// Limit times. Memory holds buckets in sharded maps under one small mutex
// per shard; Redis runs each operation as one Lua script, atomic on the
// server and timed by the server's clock, so replicas share one limit.
// Fallback serves from Memory, each process its share of every limit,
// while a Breaker says Redis is unreachable.
package limits
