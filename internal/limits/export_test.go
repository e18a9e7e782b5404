package limits

import "time"

// SetFallbackNow makes f read the time from now; call it before f is used.
func SetFallbackNow(f *Fallback, now func() time.Time) { f.now = now }
