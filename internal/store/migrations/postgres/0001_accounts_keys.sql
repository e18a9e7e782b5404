-- Accounts, API keys and the change feed that tells other processes about
-- revocations. Times are Unix milliseconds.
CREATE TABLE accounts (
    id            TEXT PRIMARY KEY,
    email         TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL DEFAULT '',
    is_admin      BOOLEAN NOT NULL DEFAULT FALSE,
    disabled      BOOLEAN NOT NULL DEFAULT FALSE,
    created_at    BIGINT NOT NULL
);

CREATE TABLE api_keys (
    id           TEXT PRIMARY KEY,
    account_id   TEXT NOT NULL REFERENCES accounts (id),
    name         TEXT NOT NULL CHECK (name <> ''),
    key_hash     TEXT NOT NULL UNIQUE,
    hint         TEXT NOT NULL,
    status       TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'revoked')),
    created_at   BIGINT NOT NULL,
    revoked_at   BIGINT,
    last_used_at BIGINT,
    CHECK ((status = 'revoked') = (revoked_at IS NOT NULL))
);
CREATE INDEX api_keys_account ON api_keys (account_id);

-- Revocation is permanent: no statement can bring a revoked key back or
-- change what it was.
CREATE FUNCTION api_keys_revocation_is_permanent() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.status = 'revoked' AND (TG_OP = 'DELETE'
        OR NEW.status IS DISTINCT FROM OLD.status
        OR NEW.revoked_at IS DISTINCT FROM OLD.revoked_at
        OR NEW.key_hash IS DISTINCT FROM OLD.key_hash) THEN
        RAISE EXCEPTION 'api key is revoked; revocation is permanent';
    END IF;
    IF TG_OP = 'DELETE' THEN
        RETURN OLD;
    END IF;
    RETURN NEW;
END;
$$;

CREATE TRIGGER api_keys_revocation_is_permanent
BEFORE UPDATE OR DELETE ON api_keys
FOR EACH ROW EXECUTE FUNCTION api_keys_revocation_is_permanent();

CREATE TABLE changes (
    seq        BIGSERIAL PRIMARY KEY,
    kind       TEXT NOT NULL,
    ref        TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
