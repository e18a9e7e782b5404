package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// StoredResponse is a Responses API answer kept for retrieval and for
// continuing the conversation (previous_response_id).
type StoredResponse struct {
	ID        string
	AccountID string
	KeyID     string
	Model     string
	CreatedAt time.Time
	ExpiresAt time.Time
	// PreviousResponseID is the response this one continued; "" for none.
	PreviousResponseID string
	// InputItems is the JSON array of every input item before the
	// response: the continued chain's, flattened, then the request's own.
	InputItems []byte
	// OutputItems is the JSON array of the response's output items.
	OutputItems []byte
	// Response is the Response object's JSON as the client received it.
	Response []byte
}

const responseColumns = `id, account_id, key_id, model, created_at, expires_at, previous_response_id,
	input_items, output_items, response`

// SaveResponse stores r. ErrExists when a response with its ID is stored
// already (whichever account's: it is never replaced).
func (s *Store) SaveResponse(ctx context.Context, r StoredResponse) error {
	if r.ID == "" || r.AccountID == "" || !r.ExpiresAt.After(r.CreatedAt) {
		return errors.New("save response: an ID, an account and an expiry after its creation are required")
	}
	in, out, resp := string(r.InputItems), string(r.OutputItems), string(r.Response)
	if unstorable(r.ID, r.AccountID, r.KeyID, r.Model, r.PreviousResponseID, in, out, resp) {
		return fmt.Errorf("save response %s: text that is not UTF-8 or holds NUL", r.ID)
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO responses (`+responseColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		r.ID, r.AccountID, r.KeyID, r.Model, millis(r.CreatedAt), millis(r.ExpiresAt), r.PreviousResponseID,
		in, out, resp)
	if isUniqueViolation(err) {
		return fmt.Errorf("save response %s: %w", r.ID, ErrExists)
	}
	if err != nil {
		return fmt.Errorf("save response %s: %w", r.ID, err)
	}
	return nil
}

// Response returns the account's stored response id. ErrNotFound when
// there is none, it has expired, or it is another account's.
func (s *Store) Response(ctx context.Context, accountID, id string) (StoredResponse, error) {
	if unstorable(accountID, id) {
		return StoredResponse{}, fmt.Errorf("response %s: %w", id, ErrNotFound)
	}
	var r StoredResponse
	var created, expires sql.NullInt64
	var in, out, resp string
	err := s.db.QueryRowContext(ctx, `SELECT `+responseColumns+` FROM responses
		WHERE id = $1 AND account_id = $2 AND expires_at > $3`, id, accountID, millis(s.now())).
		Scan(&r.ID, &r.AccountID, &r.KeyID, &r.Model, &created, &expires, &r.PreviousResponseID, &in, &out, &resp)
	if errors.Is(err, sql.ErrNoRows) {
		return StoredResponse{}, fmt.Errorf("response %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return StoredResponse{}, fmt.Errorf("read response %s: %w", id, err)
	}
	r.CreatedAt, r.ExpiresAt = fromMillis(created), fromMillis(expires)
	r.InputItems, r.OutputItems, r.Response = []byte(in), []byte(out), []byte(resp)
	return r, nil
}

// DeleteResponse deletes the account's stored response id. ErrNotFound
// when Response would not find it. Responses that continued it keep
// their own flattened copy of its items.
func (s *Store) DeleteResponse(ctx context.Context, accountID, id string) error {
	if unstorable(accountID, id) {
		return fmt.Errorf("response %s: %w", id, ErrNotFound)
	}
	res, err := s.db.ExecContext(ctx, `DELETE FROM responses WHERE id = $1 AND account_id = $2 AND expires_at > $3`,
		id, accountID, millis(s.now()))
	if err != nil {
		return fmt.Errorf("delete response %s: %w", id, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return fmt.Errorf("response %s: %w", id, ErrNotFound)
	}
	return nil
}

// PurgeResponses deletes at most limit responses that expired at or
// before before and returns how many it deleted: one short statement, so
// that a large backlog is purged in batches that never hold the table
// for long.
func (s *Store) PurgeResponses(ctx context.Context, before time.Time, limit int) (int, error) {
	if limit <= 0 {
		return 0, errors.New("purge responses: the batch size must be positive")
	}
	res, err := s.db.ExecContext(ctx, `DELETE FROM responses WHERE id IN
		(SELECT id FROM responses WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2)`, millis(before), limit)
	if err != nil {
		return 0, fmt.Errorf("purge responses: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("purge responses: %w", err)
	}
	return int(n), nil
}
