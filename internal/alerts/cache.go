package alerts

import (
	"context"
	"fmt"
)

// maxCachedPeriods is how many months of fired rules are kept per account:
// the current one and the last, around a month's turn.
const maxCachedPeriods = 2

// accountRules returns the account's rules, from the cache or the store.
// Rules loaded while an Invalidate ran are used but not cached.
func (o *Observer) accountRules(ctx context.Context, account string) ([]Rule, error) {
	o.cmu.Lock()
	rules, ok := o.rules[account]
	gen := o.gen
	o.cmu.Unlock()
	if ok {
		return rules, nil
	}
	sctx, cancel := context.WithTimeout(ctx, o.opt.StoreTimeout)
	defer cancel()
	rules, err := o.st.AlertRules(sctx, account)
	if err != nil {
		return nil, fmt.Errorf("load alert rules: %w", err)
	}
	if rules == nil {
		rules = []Rule{} // cache "none" too
	}
	o.cmu.Lock()
	if o.gen == gen {
		o.rules[account] = rules
	}
	o.cmu.Unlock()
	return rules, nil
}

// firedRules returns the set of k's account's rules that have an event
// for k's period, from the cache or the store. The caller may read the
// set; markFired changes it.
func (o *Observer) firedRules(ctx context.Context, k obsKey) (map[string]bool, error) {
	o.cmu.Lock()
	set, ok := o.fired[k.account][k.period]
	gen := o.gen
	o.cmu.Unlock()
	if ok {
		return set, nil
	}
	sctx, cancel := context.WithTimeout(ctx, o.opt.StoreTimeout)
	defer cancel()
	ids, err := o.st.FiredRules(sctx, k.account, k.period)
	if err != nil {
		return nil, fmt.Errorf("load fired alert rules: %w", err)
	}
	set = make(map[string]bool, len(ids))
	for _, id := range ids {
		set[id] = true
	}
	o.cmu.Lock()
	if o.gen == gen {
		o.storeFiredLocked(k, set)
	}
	o.cmu.Unlock()
	return set, nil
}

// storeFiredLocked caches k's set, dropping the account's oldest period
// when it has more than maxCachedPeriods ("2006-01" sorts by date).
func (o *Observer) storeFiredLocked(k obsKey, set map[string]bool) {
	periods := o.fired[k.account]
	if periods == nil {
		periods = map[string]map[string]bool{}
		o.fired[k.account] = periods
	}
	periods[k.period] = set
	for len(periods) > maxCachedPeriods {
		oldest := k.period
		for p := range periods {
			oldest = min(oldest, p)
		}
		delete(periods, oldest)
	}
}

// markFired notes that ruleID has its event for k's period.
func (o *Observer) markFired(k obsKey, ruleID string) {
	o.cmu.Lock()
	defer o.cmu.Unlock()
	if set, ok := o.fired[k.account][k.period]; ok {
		set[ruleID] = true
	}
}
