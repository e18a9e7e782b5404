package dashboard

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// clientAddr returns the key of a request's client address: the IP, or
// for IPv6 its /64, which one client usually holds whole. The address is
// the connection's, unless it is one of the trusted proxies: then
// X-Forwarded-For is read from the right, each trusted hop skipped, and
// the first address that is not a trusted proxy's is the client's (one a
// client wrote itself further left is never reached). With no trusted
// proxies the header is ignored.
func clientAddr(r *http.Request, trusted []netip.Prefix) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	ip = ip.Unmap().WithZone("")
	if isTrusted(ip, trusted) {
		ip = forwardedFor(r.Header.Values("X-Forwarded-For"), ip, trusted)
	}
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return ip.String()
}

// forwardedFor walks the hops of X-Forwarded-For (its values in order)
// from the right, starting from the trusted proxy peer, and returns the
// first hop that is not a trusted proxy. A hop that is not an address
// stops the walk at the last address read: a proxy we trust wrote it.
func forwardedFor(values []string, peer netip.Addr, trusted []netip.Prefix) netip.Addr {
	hops := strings.Split(strings.Join(values, ","), ",")
	client := peer
	for i := len(hops) - 1; i >= 0; i-- {
		ip, ok := parseHop(hops[i])
		if !ok {
			break
		}
		client = ip
		if !isTrusted(ip, trusted) {
			break
		}
	}
	return client
}

// parseHop parses one X-Forwarded-For entry: an address, possibly with a
// port.
func parseHop(s string) (netip.Addr, bool) {
	s = strings.TrimSpace(s)
	if ip, err := netip.ParseAddr(s); err == nil {
		return ip.Unmap().WithZone(""), true
	}
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap().WithZone(""), true
	}
	return netip.Addr{}, false
}

func isTrusted(ip netip.Addr, trusted []netip.Prefix) bool {
	for _, p := range trusted {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// parsePrefixes parses CIDR ranges.
func parsePrefixes(ss []string) ([]netip.Prefix, error) {
	var ps []netip.Prefix
	for _, s := range ss {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return nil, err
		}
		ps = append(ps, p.Masked())
	}
	return ps, nil
}
