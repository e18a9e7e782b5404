package metrics

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Handler serves the metrics in Prometheus's exposition formats. With a
// bearer token, a request must carry "Authorization: Bearer <token>"
// (compared in constant time) or gets 401. A nil *Metrics serves 404.
func (m *Metrics) Handler(bearerToken string) http.Handler {
	if m == nil {
		return http.NotFoundHandler()
	}
	h := promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{
		Registry:          m.reg, // counts its own errors
		ErrorHandling:     promhttp.ContinueOnError,
		EnableOpenMetrics: true,
	})
	if bearerToken == "" {
		return h
	}
	want := sha256.Sum256([]byte(bearerToken))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !authorized(r.Header.Get("Authorization"), want) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="metrics"`)
			http.Error(w, "401 Unauthorized: a bearer token is required\n", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// authorized reports whether header is "Bearer <token>" for the token
// whose SHA-256 is want. The hashes are compared, so that the time taken
// depends on neither the token's length nor its content.
func authorized(header string, want [sha256.Size]byte) bool {
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	got := sha256.Sum256([]byte(strings.TrimSpace(token)))
	return subtle.ConstantTimeCompare(got[:], want[:]) == 1
}
