package app

import (
	"context"
	"errors"
	"time"

	"github.com/switchyard-gw/switchyard/internal/apikey"
	"github.com/switchyard-gw/switchyard/internal/auth"
	"github.com/switchyard-gw/switchyard/internal/config"
	"github.com/switchyard-gw/switchyard/internal/metrics"
	"github.com/switchyard-gw/switchyard/internal/store"
)

// keyLookup adapts the store to auth.KeyLookup, timing its calls when m
// is not nil.
type keyLookup struct {
	s        *store.Store
	defaults config.Limits
	m        *metrics.Metrics
}

func (l *keyLookup) LookupKey(ctx context.Context, h apikey.Hash) (auth.KeyState, error) {
	defer l.m.DBCall("key_lookup", time.Now())
	ka, err := l.s.LookupKey(ctx, h.String())
	if errors.Is(err, store.ErrNotFound) {
		return auth.KeyState{}, auth.ErrUnknown
	}
	if err != nil {
		return auth.KeyState{}, err
	}
	return auth.KeyState{
		Principal: auth.Principal{KeyID: ka.KeyID, AccountID: ka.AccountID,
			AccountModels: ka.AccountModels, KeyModels: ka.KeyModels,
			AccountLimits: withDefaults(ka.AccountLimits, l.defaults.AccountRPM, l.defaults.AccountTPM),
			KeyLimits:     withDefaults(ka.KeyLimits, l.defaults.KeyRPM, l.defaults.KeyTPM)},
		Revoked:         ka.Revoked,
		AccountDisabled: ka.AccountDisabled,
	}, nil
}

// withDefaults resolves stored limits: a rate limit that is not set
// takes the configured default.
func withDefaults(l store.Limits, rpm, tpm int64) auth.Limits {
	out := auth.Limits{RPM: l.RPM, TPM: l.TPM, MonthlyBudget: l.MonthlyBudget}
	if out.RPM == 0 {
		out.RPM = rpm
	}
	if out.TPM == 0 {
		out.TPM = tpm
	}
	return out
}
