package alerts_test

import (
	"context"
	"errors"
	"net/netip"
	"testing"

	"github.com/switchyard-gw/switchyard/internal/alerts"
)

func TestCheckWebhookURL(t *testing.T) {
	tests := []struct {
		url     string
		opts    alerts.WebhookOptions
		refused bool
	}{
		{"http://127.0.0.1:8080/hook", alerts.WebhookOptions{}, true},
		{"http://[::1]/hook", alerts.WebhookOptions{}, true},
		{"http://169.254.169.254/latest", alerts.WebhookOptions{}, true},
		{"http://10.0.0.7/hook", alerts.WebhookOptions{}, true},
		{"http://10.0.0.7/hook", alerts.WebhookOptions{AllowedNetworks: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}, false},
		{"http://127.0.0.1/hook", alerts.WebhookOptions{AllowPrivate: true}, false},
		{"https://93.184.215.14/hook", alerts.WebhookOptions{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			err := alerts.CheckWebhookURL(context.Background(), tt.url, tt.opts)
			if errors.Is(err, alerts.ErrAddressRefused) != tt.refused || (!tt.refused && err != nil) {
				t.Errorf("CheckWebhookURL = %v, want refused %t", err, tt.refused)
			}
		})
	}
}
