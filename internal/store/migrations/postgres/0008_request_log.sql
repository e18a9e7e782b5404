-- Indexes of the dashboard's request log, which lists usage_records
-- newest first (ORDER BY created_at DESC, id DESC) under filters, one
-- page of 50 at a time from a (created_at, id) cursor. Each index ends in
-- (created_at, id), so that a page is read in order from the index after
-- its equality columns and never sorted, whatever the filters: every
-- account (operators, and the retention purge), one key (key IDs are
-- unique, so the account is not needed in front), and one model that
-- answered, one model asked or one status class (status / 100, which the
-- query writes the same way), each within an account (owners) and across
-- them (operators). A filter the index does not lead with is checked on
-- the rows the index gives. The two indexes of 0003 are replaced by their
-- versions ending in id. On a large ledger this migration takes a while
-- and holds writes to usage_records (the meter keeps records in its
-- journal meanwhile); with nine indexes instead of two the ledger's
-- writer stores fewer rows a second (docs/BENCHMARKS.md), still far more
-- than requests arrive.
DROP INDEX usage_records_account_time;
DROP INDEX usage_records_key_time;
CREATE INDEX usage_records_time ON usage_records (created_at, id);
CREATE INDEX usage_records_account_time ON usage_records (account_id, created_at, id);
CREATE INDEX usage_records_key_time ON usage_records (key_id, created_at, id);
CREATE INDEX usage_records_account_model ON usage_records (account_id, model, created_at, id);
CREATE INDEX usage_records_account_asked ON usage_records (account_id, requested_model, created_at, id);
CREATE INDEX usage_records_account_status ON usage_records (account_id, (status / 100), created_at, id);
CREATE INDEX usage_records_model ON usage_records (model, created_at, id);
CREATE INDEX usage_records_asked ON usage_records (requested_model, created_at, id);
CREATE INDEX usage_records_status ON usage_records ((status / 100), created_at, id);
