// Package redistest opens the shared test Redis named by
// SWITCHYARD_TEST_REDIS_URL under a key prefix of the test's own. It is
// never part of the binary.
package redistest

import (
	"context"
	"crypto/rand"
	"os"
	"testing"

	"github.com/redis/go-redis/v9"
)

// Options returns the test Redis's options and a fresh key prefix whose
// keys are deleted (never the database flushed: it is shared) when the
// test ends; it skips the test when SWITCHYARD_TEST_REDIS_URL is unset.
func Options(t testing.TB) (*redis.Options, string) {
	t.Helper()
	u := os.Getenv("SWITCHYARD_TEST_REDIS_URL")
	if u == "" {
		t.Skip("SWITCHYARD_TEST_REDIS_URL not set: Redis tests skipped")
	}
	opt, err := redis.ParseURL(u)
	if err != nil {
		t.Fatal(err)
	}
	prefix := "sytest:" + rand.Text()[:10] + ":"
	t.Cleanup(func() {
		ctx := context.Background()
		c := redis.NewClient(opt)
		defer c.Close()
		iter := c.Scan(ctx, 0, prefix+"*", 1000).Iterator()
		for iter.Next(ctx) {
			c.Del(ctx, iter.Val())
		}
	})
	return opt, prefix
}
