-- Responses API answers kept for GET /v1/responses/{id} and for
-- previous_response_id (store:true). input_items is the whole context
-- before the response, the chain it continues already flattened, so a
-- continuation reads one row; output_items are the response's output
-- items and response the Response object as the client received it
-- (JSON texts). Times are Unix milliseconds; rows past expires_at are
-- not served and are purged in the background. No foreign keys, as the
-- usage ledger: a stored answer never holds up a change to its account.
CREATE TABLE responses (
    id                   TEXT PRIMARY KEY,
    account_id           TEXT NOT NULL,
    key_id               TEXT NOT NULL,
    model                TEXT NOT NULL,
    created_at           BIGINT NOT NULL,
    expires_at           BIGINT NOT NULL,
    previous_response_id TEXT NOT NULL,
    input_items          TEXT NOT NULL,
    output_items         TEXT NOT NULL,
    response             TEXT NOT NULL
);
CREATE INDEX responses_expiry ON responses (expires_at);
