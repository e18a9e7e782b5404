-- The usage ledger and its daily rollup, rate and spend limits, and
-- billing alerts. Times are Unix milliseconds (durations microseconds);
-- money is integer pico-USD.

-- One row per metered request, keyed by the gateway's record ID so that a
-- batch written twice is stored once. No foreign keys: the ledger accepts
-- every record, whatever happened to its account or key since.
CREATE TABLE usage_records (
    id                TEXT PRIMARY KEY,
    request_id        TEXT NOT NULL,
    created_at        BIGINT NOT NULL,
    account_id        TEXT NOT NULL,
    key_id            TEXT NOT NULL,
    endpoint          TEXT NOT NULL,
    model             TEXT NOT NULL,
    provider          TEXT NOT NULL,
    upstream_model    TEXT NOT NULL,
    prompt_tokens     BIGINT NOT NULL,
    completion_tokens BIGINT NOT NULL,
    total_tokens      BIGINT NOT NULL,
    cached_tokens     BIGINT NOT NULL,
    tokens_estimated  BOOLEAN NOT NULL,
    input_price       BIGINT NOT NULL,
    output_price      BIGINT NOT NULL,
    price_version     TEXT NOT NULL,
    cost              BIGINT NOT NULL,
    latency_us        BIGINT NOT NULL,
    ttft_us           BIGINT NOT NULL,
    status            INTEGER NOT NULL,
    error_type        TEXT NOT NULL,
    streamed          BOOLEAN NOT NULL,
    cancelled         BOOLEAN NOT NULL
);
CREATE INDEX usage_records_account_time ON usage_records (account_id, created_at);
CREATE INDEX usage_records_key_time ON usage_records (key_id, created_at);

-- Totals per account, UTC day ('YYYY-MM-DD'), model and key, updated in
-- the transaction that inserts the records; errors count statuses >= 400.
CREATE TABLE usage_daily (
    account_id        TEXT NOT NULL,
    day               TEXT NOT NULL,
    model             TEXT NOT NULL,
    key_id            TEXT NOT NULL,
    requests          BIGINT NOT NULL,
    errors            BIGINT NOT NULL,
    prompt_tokens     BIGINT NOT NULL,
    completion_tokens BIGINT NOT NULL,
    total_tokens      BIGINT NOT NULL,
    cost              BIGINT NOT NULL,
    PRIMARY KEY (account_id, day, model, key_id)
);

-- Limits; NULL is unlimited. monthly_budget is pico-USD per calendar
-- month (UTC).
ALTER TABLE accounts ADD COLUMN rpm BIGINT CHECK (rpm > 0);
ALTER TABLE accounts ADD COLUMN tpm BIGINT CHECK (tpm > 0);
ALTER TABLE accounts ADD COLUMN monthly_budget BIGINT CHECK (monthly_budget > 0);
ALTER TABLE api_keys ADD COLUMN rpm BIGINT CHECK (rpm > 0);
ALTER TABLE api_keys ADD COLUMN tpm BIGINT CHECK (tpm > 0);
ALTER TABLE api_keys ADD COLUMN monthly_budget BIGINT CHECK (monthly_budget > 0);

-- A billing alert: notify when an account's spend in a calendar month
-- reaches threshold.
CREATE TABLE alert_rules (
    id             TEXT PRIMARY KEY,
    account_id     TEXT NOT NULL REFERENCES accounts (id),
    threshold      BIGINT NOT NULL CHECK (threshold > 0),
    webhook_url    TEXT NOT NULL DEFAULT '',
    webhook_secret TEXT NOT NULL DEFAULT '',
    email          TEXT NOT NULL DEFAULT '',
    created_at     BIGINT NOT NULL,
    CHECK (webhook_url <> '' OR email <> '')
);
CREATE INDEX alert_rules_account ON alert_rules (account_id);

-- One crossing of a rule's threshold per period ('YYYY-MM'); the unique
-- constraint makes firing exactly-once across processes. No foreign key
-- to alert_rules: the history outlives a removed rule.
CREATE TABLE alert_events (
    id         TEXT PRIMARY KEY,
    rule_id    TEXT NOT NULL,
    account_id TEXT NOT NULL,
    period     TEXT NOT NULL,
    threshold  BIGINT NOT NULL,
    spend      BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    UNIQUE (rule_id, period)
);
CREATE INDEX alert_events_account_time ON alert_events (account_id, created_at);

-- One delivery per event and channel; a pending one is due at
-- next_attempt_at, which a claim moves forward as its lease.
CREATE TABLE alert_deliveries (
    id              TEXT PRIMARY KEY,
    event_id        TEXT NOT NULL REFERENCES alert_events (id),
    channel         TEXT NOT NULL CHECK (channel IN ('webhook', 'email')),
    target          TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at BIGINT NOT NULL,
    last_error      TEXT NOT NULL DEFAULT '',
    delivered_at    BIGINT,
    UNIQUE (event_id, channel)
);
CREATE INDEX alert_deliveries_due ON alert_deliveries (status, next_attempt_at);
