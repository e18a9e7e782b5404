package store

import (
	"cmp"
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/switchyard-gw/switchyard/internal/alerts"
	"github.com/switchyard-gw/switchyard/internal/events"
	"github.com/switchyard-gw/switchyard/internal/usd"
)

var _ alerts.Store = (*Store)(nil)

// AlertHistory is one fired alert with its deliveries.
type AlertHistory struct {
	Event      alerts.Event
	Deliveries []alerts.Delivery // by channel
}

const ruleColumns = `id, account_id, threshold, webhook_url, webhook_secret, email, created_at`

// AddAlertRule stores a new rule for r.AccountID and returns it with its
// ID, creation time and, when it has a webhook, a new signing secret.
// ErrNotFound when there is no such account.
func (s *Store) AddAlertRule(ctx context.Context, r alerts.Rule) (alerts.Rule, error) {
	if r.Threshold <= 0 {
		return alerts.Rule{}, errors.New("add alert rule: the threshold must be more than 0")
	}
	if r.WebhookURL == "" && r.Email == "" {
		return alerts.Rule{}, errors.New("add alert rule: a webhook or an email is required")
	}
	r.ID = newID("alr_")
	r.CreatedAt = s.now().UTC().Truncate(time.Millisecond)
	r.WebhookSecret = ""
	if r.WebhookURL != "" {
		r.WebhookSecret = "whsec_" + strings.ToLower((rand.Text() + rand.Text())[:32])
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM accounts WHERE id = $1`, r.AccountID).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("account %s: %w", r.AccountID, ErrNotFound)
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO alert_rules (`+ruleColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
			r.ID, r.AccountID, int64(r.Threshold), r.WebhookURL, r.WebhookSecret, r.Email, millis(r.CreatedAt))
		if err != nil {
			return err
		}
		return s.recordChange(ctx, tx, events.KindAlerts, r.AccountID)
	})
	if err != nil {
		return alerts.Rule{}, fmt.Errorf("add alert rule: %w", err)
	}
	return r, nil
}

// RemoveAlertRule deletes the account's rule; its history stays.
// ErrNotFound when the account has no such rule.
func (s *Store) RemoveAlertRule(ctx context.Context, accountID, ruleID string) error {
	if unstorable(accountID, ruleID) {
		return fmt.Errorf("remove alert rule: alert rule %q: %w", ruleID, ErrNotFound)
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM alert_rules WHERE id = $1 AND account_id = $2`, ruleID, accountID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("alert rule %s: %w", ruleID, ErrNotFound)
		}
		return s.recordChange(ctx, tx, events.KindAlerts, accountID)
	})
	if err != nil {
		return fmt.Errorf("remove alert rule: %w", err)
	}
	return nil
}

func scanRule(row interface{ Scan(...any) error }) (alerts.Rule, error) {
	var r alerts.Rule
	var created sql.NullInt64
	err := row.Scan(&r.ID, &r.AccountID, (*int64)(&r.Threshold), &r.WebhookURL, &r.WebhookSecret, &r.Email, &created)
	r.CreatedAt = fromMillis(created)
	return r, err
}

// AlertRules returns the account's rules, lowest threshold first.
func (s *Store) AlertRules(ctx context.Context, accountID string) ([]alerts.Rule, error) {
	out, err := queryRows(ctx, s.db, scanRule, `SELECT `+ruleColumns+` FROM alert_rules WHERE account_id = $1
		ORDER BY threshold, created_at, id`, accountID)
	if err != nil {
		return nil, fmt.Errorf("list alert rules: %w", err)
	}
	return out, nil
}

// FiredRules returns the IDs of the account's rules that have an event
// for period, sorted.
func (s *Store) FiredRules(ctx context.Context, accountID, period string) ([]string, error) {
	out, err := queryRows(ctx, s.db, scanString,
		`SELECT rule_id FROM alert_events WHERE account_id = $1 AND period = $2 ORDER BY rule_id`, accountID, period)
	if err != nil {
		return nil, fmt.Errorf("read fired alerts: %w", err)
	}
	return out, nil
}

// FireAlert stores ev and one pending delivery, due at ev.CreatedAt, per
// channel of rule, unless rule already fired in ev.Period; it reports
// whether ev was stored. The unique (rule_id, period) constraint makes
// exactly one caller win, whichever process it runs in. An empty ev.ID,
// RuleID or AccountID is taken from a new ID and from rule; a zero
// CreatedAt is now.
func (s *Store) FireAlert(ctx context.Context, rule alerts.Rule, ev alerts.Event) (bool, error) {
	ev.ID = cmp.Or(ev.ID, newID("alev_"))
	ev.RuleID = cmp.Or(ev.RuleID, rule.ID)
	ev.AccountID = cmp.Or(ev.AccountID, rule.AccountID)
	if ev.CreatedAt.IsZero() {
		ev.CreatedAt = s.now()
	}
	if ev.RuleID != rule.ID || ev.AccountID != rule.AccountID {
		return false, fmt.Errorf("fire alert: event of rule %s (account %s) given rule %s (account %s)",
			ev.RuleID, ev.AccountID, rule.ID, rule.AccountID)
	}
	if !validPeriod(ev.Period) {
		return false, fmt.Errorf("fire alert: period %q is not a month such as 2006-01", ev.Period)
	}
	fired := false
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var id string
		err := tx.QueryRowContext(ctx, `INSERT INTO alert_events (id, rule_id, account_id, period, threshold, spend, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (rule_id, period) DO NOTHING RETURNING id`,
			ev.ID, ev.RuleID, ev.AccountID, ev.Period, int64(ev.Threshold), int64(ev.Spend), millis(ev.CreatedAt)).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return nil // fired before, here or elsewhere
		}
		if err != nil {
			return err
		}
		fired = true
		for _, d := range deliveriesOf(rule) {
			_, err := tx.ExecContext(ctx, `INSERT INTO alert_deliveries (id, event_id, channel, target, status, next_attempt_at)
				VALUES ($1, $2, $3, $4, $5, $6)`, newID("aldl_"), ev.ID, d.Channel, d.Target, alerts.StatusPending, millis(ev.CreatedAt))
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("fire alert: %w", err)
	}
	return fired, nil
}

// deliveriesOf returns a delivery (channel and target) per channel of r.
func deliveriesOf(r alerts.Rule) []alerts.Delivery {
	var out []alerts.Delivery
	if r.WebhookURL != "" {
		out = append(out, alerts.Delivery{Channel: alerts.ChannelWebhook, Target: r.WebhookURL})
	}
	if r.Email != "" {
		out = append(out, alerts.Delivery{Channel: alerts.ChannelEmail, Target: r.Email})
	}
	return out
}

// AlertHistory returns the account's latest alert events, newest first,
// each with its deliveries. A limit of 0 or less means 100.
func (s *Store) AlertHistory(ctx context.Context, accountID string, limit int) ([]AlertHistory, error) {
	if limit <= 0 {
		limit = 100
	}
	const latest = `SELECT id FROM alert_events WHERE account_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`
	evs, err := queryRows(ctx, s.db, scanEvent, `SELECT `+eventColumns+` FROM alert_events e WHERE e.account_id = $1
		ORDER BY e.created_at DESC, e.id DESC LIMIT $2`, accountID, limit)
	if err != nil {
		return nil, fmt.Errorf("read alert history: %w", err)
	}
	ds, err := queryRows(ctx, s.db, scanDelivery, `SELECT `+deliveryColumns+` FROM alert_deliveries d
		WHERE d.event_id IN (`+latest+`) ORDER BY d.event_id, d.channel`, accountID, limit)
	if err != nil {
		return nil, fmt.Errorf("read alert history: %w", err)
	}
	byEvent := map[string][]alerts.Delivery{}
	for _, d := range ds {
		byEvent[d.EventID] = append(byEvent[d.EventID], d)
	}
	out := make([]AlertHistory, len(evs))
	for i, ev := range evs {
		out[i] = AlertHistory{Event: ev, Deliveries: byEvent[ev.ID]}
	}
	return out, nil
}

const eventColumns = `e.id, e.rule_id, e.account_id, e.period, e.threshold, e.spend, e.created_at`

func eventDest(ev *alerts.Event, created *sql.NullInt64) []any {
	return []any{&ev.ID, &ev.RuleID, &ev.AccountID, &ev.Period, (*int64)(&ev.Threshold), (*int64)(&ev.Spend), created}
}

func scanEvent(row interface{ Scan(...any) error }) (alerts.Event, error) {
	var ev alerts.Event
	var created sql.NullInt64
	err := row.Scan(eventDest(&ev, &created)...)
	ev.CreatedAt = fromMillis(created)
	return ev, err
}

const deliveryColumns = `d.id, d.event_id, d.channel, d.target, d.status, d.attempts, d.next_attempt_at, d.last_error, d.delivered_at`

func deliveryDest(d *alerts.Delivery, next, delivered *sql.NullInt64) []any {
	return []any{&d.ID, &d.EventID, &d.Channel, &d.Target, &d.Status, &d.Attempts, next, &d.LastError, delivered}
}

func scanDelivery(row interface{ Scan(...any) error }) (alerts.Delivery, error) {
	var d alerts.Delivery
	var next, delivered sql.NullInt64
	err := row.Scan(deliveryDest(&d, &next, &delivered)...)
	d.NextAttemptAt, d.DeliveredAt = fromMillis(next), fromMillis(delivered)
	return d, err
}

// ClaimDeliveries leases up to limit pending deliveries due at now: each
// one's next_attempt_at moves to now+lease by a compare-and-set on its
// old value, so of several processes claiming at once exactly one gets
// it. Rows are updated in ID order, so concurrent claimers never deadlock.
func (s *Store) ClaimDeliveries(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]alerts.Claim, error) {
	if lease <= 0 || limit <= 0 {
		return nil, fmt.Errorf("claim deliveries: lease (%v) and limit (%d) must be positive", lease, limit)
	}
	var claimed []string
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		due, err := dueDeliveries(ctx, tx, now, limit)
		if err != nil {
			return err
		}
		for _, d := range due {
			res, err := tx.ExecContext(ctx, `UPDATE alert_deliveries SET next_attempt_at = $1
				WHERE id = $2 AND status = $3 AND next_attempt_at = $4`,
				millis(now.Add(lease)), d.id, alerts.StatusPending, d.next)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 1 {
				claimed = append(claimed, d.id)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("claim deliveries: %w", err)
	}
	claims, err := s.claims(ctx, claimed)
	if err != nil {
		return nil, fmt.Errorf("claim deliveries: %w", err)
	}
	return claims, nil
}

type dueDelivery struct {
	id   string
	next int64 // next_attempt_at as read, for the compare-and-set
}

// dueDeliveries returns the earliest due pending deliveries, sorted by ID.
func dueDeliveries(ctx context.Context, tx *sql.Tx, now time.Time, limit int) ([]dueDelivery, error) {
	out, err := queryRows(ctx, tx, func(row interface{ Scan(...any) error }) (dueDelivery, error) {
		var d dueDelivery
		err := row.Scan(&d.id, &d.next)
		return d, err
	}, `SELECT id, next_attempt_at FROM alert_deliveries
		WHERE status = $1 AND next_attempt_at <= $2 ORDER BY next_attempt_at, id LIMIT $3`,
		alerts.StatusPending, millis(now), limit)
	slices.SortFunc(out, func(a, b dueDelivery) int { return strings.Compare(a.id, b.id) })
	return out, err
}

// claims reads the deliveries with these IDs, each with its event and
// its rule as it is now (zero when removed), oldest event first.
func (s *Store) claims(ctx context.Context, ids []string) ([]alerts.Claim, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	args := make([]any, 0, len(ids))
	for _, id := range ids {
		args = append(args, id)
	}
	return queryRows(ctx, s.db, scanClaim, `SELECT `+deliveryColumns+`, `+eventColumns+`,
			r.id, r.account_id, r.threshold, r.webhook_url, r.webhook_secret, r.email, r.created_at
		FROM alert_deliveries d JOIN alert_events e ON e.id = d.event_id
		LEFT JOIN alert_rules r ON r.id = e.rule_id
		WHERE d.id IN `+s.placeholders(1, len(ids))+` ORDER BY e.created_at, d.id`, args...)
}

func scanClaim(row interface{ Scan(...any) error }) (alerts.Claim, error) {
	var c alerts.Claim
	var next, delivered, evCreated sql.NullInt64
	var rID, rAccount, rURL, rSecret, rEmail sql.NullString
	var rThreshold, rCreated sql.NullInt64 // NULL when the rule is gone
	dest := append(deliveryDest(&c.Delivery, &next, &delivered), eventDest(&c.Event, &evCreated)...)
	dest = append(dest, &rID, &rAccount, &rThreshold, &rURL, &rSecret, &rEmail, &rCreated)
	if err := row.Scan(dest...); err != nil {
		return alerts.Claim{}, err
	}
	c.Delivery.NextAttemptAt, c.Delivery.DeliveredAt = fromMillis(next), fromMillis(delivered)
	c.Event.CreatedAt = fromMillis(evCreated)
	if rID.Valid {
		c.Rule = alerts.Rule{ID: rID.String, AccountID: rAccount.String, Threshold: usd.Amount(rThreshold.Int64),
			WebhookURL: rURL.String, WebhookSecret: rSecret.String, Email: rEmail.String, CreatedAt: fromMillis(rCreated)}
	}
	return c, nil
}

// FinishDelivery stores the outcome of an attempt at d: its Status,
// Attempts, NextAttemptAt, LastError and DeliveredAt. ErrNotFound for an
// unknown ID.
func (s *Store) FinishDelivery(ctx context.Context, d alerts.Delivery) error {
	var delivered sql.NullInt64
	if !d.DeliveredAt.IsZero() {
		delivered = sql.NullInt64{Int64: millis(d.DeliveredAt), Valid: true}
	}
	res, err := s.db.ExecContext(ctx, `UPDATE alert_deliveries
		SET status = $1, attempts = $2, next_attempt_at = $3, last_error = $4, delivered_at = $5 WHERE id = $6`,
		d.Status, d.Attempts, millis(d.NextAttemptAt), d.LastError, delivered, d.ID)
	if err != nil {
		return fmt.Errorf("finish delivery: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("finish delivery %s: %w", d.ID, ErrNotFound)
	}
	return nil
}
