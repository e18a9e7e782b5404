-- Cheaper ledger rows (issue 18): index upkeep is most of the server's
-- work per record (85% of its instructions in a COPY), so the ledger's
-- indexes are made cheaper to insert into, with the same contents.
--
-- The text columns of usage_records that its indexes hold compare by
-- bytes (COLLATE "C") instead of by the database's locale. Every insert
-- descends the primary key and the request log's indexes comparing
-- text; under a libc locale, even C.UTF-8, each comparison copies both
-- strings and calls strcoll (9% of the instructions per row). For
-- C.UTF-8 the order is the same (code points, which is byte order in
-- UTF-8), and it is the order the writer sorts a batch in (uniqueByID)
-- and the request log merges pages in (newer): no query answers
-- differently. Under another locale (en_US.UTF-8, say) the request log's
-- tie-break on id now follows byte order too, as that merge always did.
-- Prepared statements that return these columns, cached on connections
-- of replicas still running the old version, fail once after this
-- ("cached plan must not change result type") and are prepared again.
-- deduplicate_items (below) needs PostgreSQL 13 or later.
--
-- Only usage_records changes. No statement compares these columns with
-- another table's (usage_daily is filled from them, and joined with
-- api_keys in its own collation), so no comparison mixes collations.
-- The table is not rewritten (the type stays text) but its indexes are
-- rebuilt, which on a large ledger takes a while (as long as creating
-- those of 0008) and holds reads and writes of it: the request log waits,
-- and the meter keeps records in its journal meanwhile.
ALTER TABLE usage_records
    ALTER COLUMN id TYPE TEXT COLLATE "C",
    ALTER COLUMN account_id TYPE TEXT COLLATE "C",
    ALTER COLUMN key_id TYPE TEXT COLLATE "C",
    ALTER COLUMN model TYPE TEXT COLLATE "C",
    ALTER COLUMN requested_model TYPE TEXT COLLATE "C";

-- Every secondary index of the ledger ends in id, so no two of its
-- entries are equal and deduplication (on by default) never merges any:
-- it only scans each full page once more before splitting it, 7% of the
-- server's work per row. Records are never updated, so there are no
-- versions of a row to deduplicate either.
ALTER INDEX usage_records_time SET (deduplicate_items = off);
ALTER INDEX usage_records_account_time SET (deduplicate_items = off);
ALTER INDEX usage_records_key_time SET (deduplicate_items = off);
ALTER INDEX usage_records_account_model SET (deduplicate_items = off);
ALTER INDEX usage_records_model SET (deduplicate_items = off);
ALTER INDEX usage_records_account_status SET (deduplicate_items = off);
ALTER INDEX usage_records_status SET (deduplicate_items = off);
ALTER INDEX usage_records_account_asked SET (deduplicate_items = off);
ALTER INDEX usage_records_asked SET (deduplicate_items = off);
