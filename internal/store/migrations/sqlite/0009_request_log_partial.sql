-- Cheaper ledger rows (issue 18): the request log's indexes of 0008 for
-- a status class and for the model asked are replaced by partial ones
-- that hold only the rare rows, so that a typical record maintains five
-- secondary indexes instead of nine.
--
-- Status: only statuses outside 2xx (1–2% of requests) are indexed. A
-- query for 1xx, 3xx, 4xx or 5xx, or an exact status outside 2xx, names
-- the predicate "status / 100 <> 2" word for word (requestlog.go), which
-- is how SQLite recognizes that a partial index applies. A 2xx query
-- reads the account's (or the time) index and skips the few errors.
--
-- Model asked: only rows that asked for another model than answered
-- (about 2%) are indexed. A query for the model asked X is two ordered
-- reads merged in Go: rows answered by X that asked for X (the model
-- indexes) and rows that asked for X and were answered by another (these
-- partial indexes, predicate "requested_model <> model").
DROP INDEX usage_records_account_status;
DROP INDEX usage_records_status;
DROP INDEX usage_records_account_asked;
DROP INDEX usage_records_asked;
CREATE INDEX usage_records_account_status ON usage_records (account_id, (status / 100), created_at, id)
	WHERE status / 100 <> 2;
CREATE INDEX usage_records_status ON usage_records ((status / 100), created_at, id) WHERE status / 100 <> 2;
CREATE INDEX usage_records_account_asked ON usage_records (account_id, requested_model, created_at, id)
	WHERE requested_model <> model;
CREATE INDEX usage_records_asked ON usage_records (requested_model, created_at, id) WHERE requested_model <> model;
