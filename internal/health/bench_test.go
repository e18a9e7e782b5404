package health_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/health"
)

// BenchmarkOrder measures the hot path: one Order per request, over a
// model's 1 to 3 (and 10) deployments that have all been seen, none
// cooling.
func BenchmarkOrder(b *testing.B) {
	for _, st := range []catalog.Strategy{catalog.StrategyWeighted, catalog.StrategyLeastBusy, catalog.StrategyLatency} {
		for _, n := range []int{1, 2, 3, 10} {
			b.Run(fmt.Sprintf("%s/%d", st, n), func(b *testing.B) {
				tr := health.New(health.Config{}, nil)
				ds := deps()
				for i := range n {
					d := dep(fmt.Sprintf("p%d/model", i), i+1, i/2)
					ds = append(ds, d)
					tr.Success(d.Key, time.Duration(i+1)*time.Millisecond)
				}
				b.ReportAllocs()
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						if order, _, _ := tr.Order(ds, st); len(order) != n {
							b.Fatalf("order of %d", len(order))
						}
					}
				})
			})
		}
	}
}

// BenchmarkBeginSuccess measures the bookkeeping of one answered call.
func BenchmarkBeginSuccess(b *testing.B) {
	tr := health.New(health.Config{}, nil)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			done := tr.Begin("p/model")
			tr.Attempt("model")
			tr.Success("p/model", time.Millisecond)
			done()
		}
	})
}
