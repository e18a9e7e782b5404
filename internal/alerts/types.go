package alerts

import (
	"context"
	"time"

	"github.com/switchyard-gw/switchyard/internal/usd"
)

// Channels of delivery.
const (
	ChannelWebhook = "webhook"
	ChannelEmail   = "email"
)

// Delivery states.
const (
	StatusPending   = "pending"
	StatusDelivered = "delivered"
	StatusFailed    = "failed"
)

// Rule is a billing alert threshold of an account: when the account's
// spend in a calendar month (UTC) first reaches Threshold, one Event is
// stored and delivered to the rule's webhook and/or email.
type Rule struct {
	ID        string
	AccountID string
	Threshold usd.Amount
	// WebhookURL is "" for none; WebhookSecret signs its deliveries.
	WebhookURL    string
	WebhookSecret string
	Email         string // "" for none
	CreatedAt     time.Time
}

// Event is one crossing of a rule's threshold in one period.
type Event struct {
	ID        string
	RuleID    string
	AccountID string
	Period    string // "2006-01"
	Threshold usd.Amount
	Spend     usd.Amount // the month's spend when the crossing was seen
	CreatedAt time.Time
}

// Delivery is one channel's delivery of an event.
type Delivery struct {
	ID       string
	EventID  string
	Channel  string // ChannelWebhook or ChannelEmail
	Target   string // URL or address
	Status   string // StatusPending, StatusDelivered, StatusFailed
	Attempts int
	// NextAttemptAt is when a pending delivery is next due.
	NextAttemptAt time.Time
	LastError     string
	DeliveredAt   time.Time // zero until delivered
}

// Store is what alerts need of the database (implemented by store).
type Store interface {
	// AlertRules returns the account's rules, lowest threshold first.
	AlertRules(ctx context.Context, accountID string) ([]Rule, error)
	// FiredRules returns the IDs of the account's rules that already have
	// an event for period.
	FiredRules(ctx context.Context, accountID, period string) ([]string, error)
	// FireAlert stores ev with one pending delivery per channel of rule,
	// due at ev.CreatedAt, unless the rule already has an event for
	// ev.Period. It reports whether ev was stored (exactly one caller,
	// across every process, gets true for a rule and period).
	FireAlert(ctx context.Context, rule Rule, ev Event) (bool, error)
	// ClaimDeliveries returns up to limit pending deliveries due at now,
	// with their events and rules, after moving each one's NextAttemptAt
	// to now+lease so that no other process takes it meanwhile.
	ClaimDeliveries(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]Claim, error)
	// FinishDelivery records an attempt's outcome: d.Status, d.Attempts,
	// d.NextAttemptAt, d.LastError and d.DeliveredAt as given.
	FinishDelivery(ctx context.Context, d Delivery) error
}

// Claim is a delivery to attempt, with what it needs to be sent. Rule is
// the rule as it is now; a removed rule leaves it zero (the delivery still
// goes out to Delivery.Target, unsigned only if the secret is gone).
type Claim struct {
	Delivery Delivery
	Event    Event
	Rule     Rule
}
