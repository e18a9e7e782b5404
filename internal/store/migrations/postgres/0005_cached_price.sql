-- The price of a cached prompt token (pico-USD) that each usage record
-- used: cached_tokens are billed at it, the other prompt tokens at
-- input_price. Records written before it hold 0 and were billed with
-- every prompt token at input_price.
ALTER TABLE usage_records ADD COLUMN cached_price BIGINT NOT NULL DEFAULT 0;
