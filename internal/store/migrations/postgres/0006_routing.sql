-- What routing did for each request: the model the client asked for
-- (model is the one that answered, a fallback's), the deployment of the last
-- attempt ('provider/upstream_id', '' when no upstream was called) and
-- the number of upstream attempts. Records written before hold '', ''
-- and 0.
ALTER TABLE usage_records ADD COLUMN requested_model TEXT NOT NULL DEFAULT '';
ALTER TABLE usage_records ADD COLUMN deployment TEXT NOT NULL DEFAULT '';
ALTER TABLE usage_records ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
