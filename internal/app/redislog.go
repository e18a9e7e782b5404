package app

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/redis/go-redis/v9"
)

// redisLogger passes the Redis client's messages (a pool that cannot dial,
// say) to slog, so that they are JSON lines like every other instead of
// the plain text go-redis writes to stderr (issue 13).
type redisLogger struct{ log *slog.Logger }

func (l redisLogger) Printf(ctx context.Context, format string, v ...any) {
	l.log.WarnContext(ctx, fmt.Sprintf(format, v...))
}

// setRedisLogger routes go-redis's messages to log. go-redis keeps its
// logger in a variable of its own package, for every client of the
// process: the last App built with Redis sets it (one, in the binary).
func setRedisLogger(log *slog.Logger) {
	redis.SetLogger(redisLogger{log: log.With("component", "redis")})
}
