#!/usr/bin/env bash
# The deployment's topology without containers (docs/deploy.md): three
# replicas on one PostgreSQL and one Redis behind Debian's nginx running
# deploy/nginx.conf, driven by tests/e2e/lb.test.mjs through the balancer.
# It makes a fresh PostgreSQL database for the run (dropped at the end) and
# uses a Redis database of its own (never flushed: every key expires), and
# stops every process it started, even on failure.
set -euo pipefail
cd "$(dirname "$0")/.."

export PATH="/usr/local/go/bin:$(go env GOPATH 2>/dev/null || echo "$HOME/go")/bin:$PATH"
PG_HOST=127.0.0.1 PG_PORT=5432 PG_USER=postgres
REDIS_DB="${SWITCHYARD_LB_REDIS_DB:-9}"

# Debian's nginx, installed without starting the system's service.
ensure_nginx() {
  if command -v nginx >/dev/null; then return; fi
  local policy=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
    policy=/usr/sbin/policy-rc.d
  fi
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light >/dev/null
  if [ -n "$policy" ]; then rm -f "$policy"; fi
}
ensure_nginx

work=$(mktemp -d /tmp/switchyard-lbci-XXXXXX)
db="switchyard_lb_$(date +%s)_$$"
group=""
cleanup() {
  local status=$?
  if [ -n "$group" ] && kill -0 -- "-$group" 2>/dev/null; then
    kill -TERM -- "-$group" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 -- "-$group" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$group" 2>/dev/null || true
  fi
  psql -h "$PG_HOST" -p "$PG_PORT" -U "$PG_USER" -d postgres -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null || true
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

psql -h "$PG_HOST" -p "$PG_PORT" -U "$PG_USER" -d postgres -qc "CREATE DATABASE $db" >/dev/null
go build -o "$work/switchyard" ./cmd/switchyard
go build -o "$work/fakeupstream" ./tests/e2e/fakeupstream
if [ ! -d tests/e2e/node_modules/openai ]; then (cd tests/e2e && npm ci --no-audit --no-fund >/dev/null); fi

export SWITCHYARD_LB_BIN="$work/switchyard" SWITCHYARD_LB_FAKE="$work/fakeupstream"
export SWITCHYARD_LB_DATABASE_URL="postgres://$PG_USER@$PG_HOST:$PG_PORT/$db?sslmode=disable"
export SWITCHYARD_LB_REDIS_URL="redis://127.0.0.1:6379/$REDIS_DB"
export SWITCHYARD_LB_NGINX="$(command -v nginx)"
# Its own process group, so that cleanup reaches every process it starts
# even if node dies before its own after() hooks run.
setsid node --test --test-timeout=240000 tests/e2e/lb.test.mjs &
group=$!
wait "$group"
