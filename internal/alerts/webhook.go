package alerts

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"time"
)

// EventType is the "type" of a billing alert's webhook body.
const EventType = "billing_alert.threshold_reached"

// WebhookOptions configure a Webhook. Zero values take the defaults.
type WebhookOptions struct {
	// AllowPrivate lets webhooks reach any address, including loopback
	// and private networks. Default false: only public addresses.
	AllowPrivate bool
	// AllowedNetworks are networks webhooks may reach although the guard
	// would refuse them (an internal receiver, say). Default none.
	AllowedNetworks []netip.Prefix
	// Timeout bounds one request, from dial to the end of the response
	// body. Default 10s.
	Timeout time.Duration
	// Now stamps signatures. Default time.Now.
	Now func() time.Time
}

// Webhook sends deliveries as signed JSON POSTs.
type Webhook struct {
	client *http.Client
	now    func() time.Time
}

var _ Sender = (*Webhook)(nil)

// maxResponseBody is how much of a receiver's answer is read (and dropped).
const maxResponseBody = 64 << 10

// NewWebhook returns a Webhook with its own client and transport, which
// never follows redirects and dials only what the network guard allows.
func NewWebhook(opts WebhookOptions) *Webhook {
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	g := guard{allowPrivate: opts.AllowPrivate, allowed: opts.AllowedNetworks}
	dialer := &net.Dialer{Timeout: opts.Timeout, KeepAlive: 30 * time.Second, Control: g.control}
	tr := &http.Transport{
		Proxy:                 nil, // a proxy would dial for us, past the guard
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          16,
		IdleConnTimeout:       30 * time.Second,
		TLSHandshakeTimeout:   opts.Timeout,
		ResponseHeaderTimeout: opts.Timeout,
	}
	client := &http.Client{
		Transport: tr,
		Timeout:   opts.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
	return &Webhook{client: client, now: opts.Now}
}

// CloseIdleConnections closes the transport's idle connections.
func (w *Webhook) CloseIdleConnections() { w.client.CloseIdleConnections() }

// payload is the webhook body; money is exact decimal USD.
type payload struct {
	ID           string `json:"id"`
	Type         string `json:"type"`
	Created      int64  `json:"created"`
	AccountID    string `json:"account_id"`
	Period       string `json:"period"`
	ThresholdUSD string `json:"threshold_usd"`
	SpendUSD     string `json:"spend_usd"`
	RuleID       string `json:"rule_id"`
}

// WebhookBody returns the JSON body of ev's webhook.
func WebhookBody(ev Event) []byte {
	b, _ := json.Marshal(payload{
		ID: ev.ID, Type: EventType, Created: ev.CreatedAt.Unix(), AccountID: ev.AccountID, Period: ev.Period,
		ThresholdUSD: ev.Threshold.String(), SpendUSD: ev.Spend.String(), RuleID: ev.RuleID,
	})
	return b // marshalling strings and an int cannot fail
}

// Send POSTs c's event to c.Delivery.Target, signed with the rule's secret
// (unsigned when the rule, and so its secret, is gone). A 2xx answer is
// success; 408, 429 and 5xx are retried; any other answer, a redirect
// included, and a refused address fail at once.
func (w *Webhook) Send(ctx context.Context, c Claim) error {
	req, err := w.request(ctx, c)
	if err != nil {
		return err
	}
	resp, err := w.client.Do(req)
	if err != nil {
		if re := (*refusedError)(nil); errors.As(err, &re) {
			return permanent(fmt.Errorf("webhook to %s: %w", req.URL.Host, re))
		}
		return fmt.Errorf("webhook to %s: %w", req.URL.Host, unwrapURLError(err))
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, maxResponseBody))
	resp.Body.Close()
	return statusError(resp)
}

// request builds the signed POST of c.
func (w *Webhook) request(ctx context.Context, c Claim) (*http.Request, error) {
	u, err := url.Parse(c.Delivery.Target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, permanent(classed("invalid webhook URL", fmt.Errorf("webhook URL %q is not an http(s) URL", c.Delivery.Target)))
	}
	body := WebhookBody(c.Event)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, permanent(classed("invalid webhook URL", fmt.Errorf("webhook request: %w", err)))
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Switchyard-Webhook/1")
	req.Header.Set("X-Switchyard-Event-Id", c.Event.ID)
	if c.Rule.WebhookSecret != "" {
		req.Header.Set(SignatureHeader, Sign(c.Rule.WebhookSecret, w.now().Unix(), body))
	}
	return req, nil
}

// statusError classifies a receiver's answer; owners see "HTTP <code>".
func statusError(resp *http.Response) error {
	code := resp.StatusCode
	class := "HTTP " + strconv.Itoa(code)
	switch {
	case code >= 200 && code < 300:
		return nil
	case code >= 300 && code < 400:
		return permanent(classed(class+" (redirects are not followed)",
			fmt.Errorf("webhook answered %s (redirects are not followed)", statusText(resp))))
	case code == http.StatusRequestTimeout, code == http.StatusTooManyRequests, code >= 500:
		return classed(class, fmt.Errorf("webhook answered %s", statusText(resp)))
	}
	return permanent(classed(class, fmt.Errorf("webhook answered %s", statusText(resp))))
}

func statusText(resp *http.Response) string {
	if resp.Status != "" {
		return resp.Status
	}
	return strconv.Itoa(resp.StatusCode)
}

// unwrapURLError drops *url.Error's `Post "<url>":` prefix: the URL may
// carry credentials, and the caller names the host.
func unwrapURLError(err error) error {
	if ue := (*url.Error)(nil); errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
