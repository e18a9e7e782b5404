package alerts

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"syscall"
)

// ErrAddressRefused is matched (errors.Is) by the error of a webhook
// delivery whose host resolved to an address the network guard refuses.
var ErrAddressRefused = errors.New("address refused by the network guard")

// refusedError is the guard's refusal of one address.
type refusedError struct {
	addr netip.Addr
	kind string // "loopback", "private", …
}

func (e *refusedError) Error() string {
	return fmt.Sprintf("address %s is %s, and webhooks may reach only public addresses "+
		"unless alerts.webhook_allow_private or alerts.webhook_allowed_networks permit it", e.addr, e.kind)
}

func (e *refusedError) Is(target error) bool { return target == ErrAddressRefused }

// Ranges the netip.Addr predicates do not name.
var (
	cgnat      = netip.MustParsePrefix("100.64.0.0/10")
	thisNet    = netip.MustParsePrefix("0.0.0.0/8")
	broadcast  = netip.MustParsePrefix("255.255.255.255/32")
	siteLocal6 = netip.MustParsePrefix("fec0::/10")
	// NAT64 prefixes (RFC 6052, RFC 8215): a gateway translates them to
	// the IPv4 address they embed, which may be the gateway's own network.
	nat64      = netip.MustParsePrefix("64:ff9b::/96")
	nat64Local = netip.MustParsePrefix("64:ff9b:1::/48")
)

// guard decides which addresses webhooks may connect to. Webhook URLs come
// from account owners, so by default they may not reach the gateway's own
// network: loopback, private, link-local (cloud metadata), CGNAT and the
// like, in IPv4, IPv6 and IPv4-mapped IPv6 forms.
type guard struct {
	allowPrivate bool
	allowed      []netip.Prefix
}

// check returns nil when ip may be dialled, else a *refusedError.
func (g guard) check(ip netip.Addr) error {
	if g.allowPrivate {
		return nil
	}
	ip = ip.WithZone("")
	v := ip.Unmap()
	for _, p := range g.allowed {
		if p.Contains(ip) || p.Contains(v) {
			return nil
		}
	}
	if kind := restricted(v); kind != "" {
		return &refusedError{addr: ip, kind: kind}
	}
	return nil
}

// restricted names the class of a non-public address, or returns "".
func restricted(ip netip.Addr) string {
	switch {
	case !ip.IsValid():
		return "invalid"
	case ip.IsUnspecified(), thisNet.Contains(ip):
		return "unspecified"
	case ip.IsLoopback():
		return "loopback"
	case ip.IsPrivate(), siteLocal6.Contains(ip):
		return "private"
	case ip.IsLinkLocalUnicast():
		return "link-local"
	case ip.IsMulticast(), broadcast.Contains(ip):
		return "multicast or broadcast"
	case cgnat.Contains(ip):
		return "shared (CGNAT)"
	case nat64.Contains(ip), nat64Local.Contains(ip):
		return "NAT64 (translated to IPv4)"
	}
	return ""
}

// control is a net.Dialer.Control: it runs after name resolution, on the
// very address being connected to, so a DNS answer that changes between a
// check and the connection (DNS rebinding) cannot slip past it.
func (g guard) control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("network guard: unexpected address %q: %w", address, err)
	}
	return g.check(ap.Addr())
}

// CheckWebhookURL reports whether a delivery to rawURL with opts would be
// refused by the network guard, as it would be at delivery time: it
// resolves the host now and returns the refusal of the first address
// refused (matching ErrAddressRefused), or the resolution's error. A
// name's addresses may change before a delivery; this is advice for
// whoever adds the webhook, not the guard.
func CheckWebhookURL(ctx context.Context, rawURL string, opts WebhookOptions) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return fmt.Errorf("parse webhook URL: %w", err)
	}
	g := guard{allowPrivate: opts.AllowPrivate, allowed: opts.AllowedNetworks}
	host := u.Hostname()
	if ip, err := netip.ParseAddr(host); err == nil {
		return g.check(ip)
	}
	ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return fmt.Errorf("resolve %s: %w", host, err)
	}
	for _, ip := range ips {
		if err := g.check(ip); err != nil {
			return err
		}
	}
	return nil
}
