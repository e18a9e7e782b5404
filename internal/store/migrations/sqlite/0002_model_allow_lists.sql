-- Model allow-lists: a JSON array of model IDs (a trailing * matches a
-- prefix); an empty array permits every model.
ALTER TABLE accounts ADD COLUMN allowed_models TEXT NOT NULL DEFAULT '[]';
ALTER TABLE api_keys ADD COLUMN allowed_models TEXT NOT NULL DEFAULT '[]';
