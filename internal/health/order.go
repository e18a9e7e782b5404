package health

import (
	"math/rand/v2"
	"time"

	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/route"
)

// smallOrder is the number of deployments Order ranks without allocating
// anything but its result.
const smallOrder = 8

// Order returns the deployments to try for one request, best first:
// priority tiers ascending (lower first); within a tier the healthy ones
// by strategy s:
//
//   - weighted ("" and any unknown strategy): weighted random without
//     replacement, Weight 0 counting as 1;
//   - least-busy: fewest calls in flight (Begin), ties in random order;
//   - latency: lowest moving average of time to first byte, the
//     deployments without a recent sample first (in random order) so that
//     new ones get probed.
//
// Deployments cooling down are left out; coolingUntil is the earliest end
// of their cooldowns (zero when none was left out), and coolingByRateLimit
// reports whether that cooldown came from an upstream 429. ds is not
// modified. Order is safe for concurrent use and takes no lock.
func (t *Tracker) Order(ds []route.Deployment, s catalog.Strategy) (order []route.Deployment, coolingUntil time.Time, coolingByRateLimit bool) {
	return t.order(ds, s, true)
}

// Rank orders ds as Order does, by priority tier and strategy, but keeps
// the deployments that are cooling down: the order of a request that
// tries them regardless (the gateway's panic routing).
func (t *Tracker) Rank(ds []route.Deployment, s catalog.Strategy) []route.Deployment {
	order, _, _ := t.order(ds, s, false)
	return order
}

// order is Order, leaving out the deployments cooling down when skip.
func (t *Tracker) order(ds []route.Deployment, s catalog.Strategy, skip bool) (order []route.Deployment, coolingUntil time.Time, coolingByRateLimit bool) {
	cfg := t.config()
	now := t.now().UnixNano()
	var (
		buf   [smallOrder]int64
		vals  = buf[:0] // the strategy's measure, aligned with order
		first *entry    // the cooling entry that ends first
		end   int64
	)
	if len(ds) > smallOrder {
		vals = make([]int64, 0, len(ds))
	}
	order = make([]route.Deployment, 0, len(ds))
	for i := range ds {
		e := t.lookup(ds[i].Key)
		if e != nil && skip {
			if until := e.until.Load(); until > now {
				if first == nil || until < end {
					first, end = e, until
				}
				continue
			}
		}
		order = append(order, ds[i])
		vals = append(vals, measure(e, s, now, cfg))
	}
	if first != nil {
		coolingUntil, coolingByRateLimit = time.Unix(0, end), first.rateLimit.Load()
	}
	byPriority(order, vals)
	for i := 0; i < len(order); {
		j := i + 1
		for j < len(order) && order[j].Priority == order[i].Priority {
			j++
		}
		if s == catalog.StrategyLeastBusy || s == catalog.StrategyLatency {
			byMeasure(order[i:j], vals[i:j])
		} else {
			weighted(order[i:j])
		}
		i = j
	}
	return order, coolingUntil, coolingByRateLimit
}

// measure returns what strategy s ranks e by, lowest first: calls in
// flight, or average time to first byte (0, the best, when unknown).
func measure(e *entry, s catalog.Strategy, now int64, cfg *Config) int64 {
	if e == nil {
		return 0
	}
	switch s {
	case catalog.StrategyLeastBusy:
		return e.inFlight.Load()
	case catalog.StrategyLatency:
		return e.latency(now, cfg)
	}
	return 0
}

// byPriority sorts ds (and vals with it) by ascending Priority, stably:
// an insertion sort, for the few deployments of a model.
func byPriority(ds []route.Deployment, vals []int64) {
	for i := 1; i < len(ds); i++ {
		for j := i; j > 0 && ds[j].Priority < ds[j-1].Priority; j-- {
			ds[j], ds[j-1] = ds[j-1], ds[j]
			vals[j], vals[j-1] = vals[j-1], vals[j]
		}
	}
}

// byMeasure orders ds by ascending vals, ties in random order: a shuffle,
// then a stable insertion sort.
func byMeasure(ds []route.Deployment, vals []int64) {
	for i := len(ds) - 1; i > 0; i-- {
		j := rand.IntN(i + 1)
		ds[i], ds[j] = ds[j], ds[i]
		vals[i], vals[j] = vals[j], vals[i]
	}
	for i := 1; i < len(ds); i++ {
		for j := i; j > 0 && vals[j] < vals[j-1]; j-- {
			ds[j], ds[j-1] = ds[j-1], ds[j]
			vals[j], vals[j-1] = vals[j-1], vals[j]
		}
	}
}

// weighted orders ds by weighted random sampling without replacement:
// each place goes to one of the deployments left with a chance in
// proportion to its weight.
func weighted(ds []route.Deployment) {
	for i := 0; i < len(ds)-1; i++ {
		var total int64
		for j := i; j < len(ds); j++ {
			total += weight(&ds[j])
		}
		r := rand.Int64N(total)
		for j := i; j < len(ds); j++ {
			if r -= weight(&ds[j]); r < 0 {
				ds[i], ds[j] = ds[j], ds[i]
				break
			}
		}
	}
}

// weight returns d's weight; 0 (or less) counts as 1.
func weight(d *route.Deployment) int64 {
	return max(int64(d.Weight), 1)
}
