package dashboard

import "testing"

func TestSafeNext(t *testing.T) {
	tests := []struct{ next, want string }{
		{"", "/dashboard"},
		{"/dashboard", "/dashboard"},
		{"/dashboard/keys", "/dashboard/keys"},
		{"/dashboard/usage?by=model&since=2026-11-01", "/dashboard/usage?by=model&since=2026-11-01"},
		{"/dashboard/login", "/dashboard"},
		{"/dashboard/signup", "/dashboard"},
		{"https://evil.example/dashboard", "/dashboard"},
		{"//evil.example/dashboard", "/dashboard"},
		{"/\\evil.example", "/dashboard"},
		{"/v1/models", "/dashboard"},
		{"/dashboardx", "/dashboard"},
		{"/dashboard/../v1/models", "/dashboard"},
		{"/dashboard/keys\r\nSet-Cookie: x=1", "/dashboard"},
		{"javascript:alert(1)", "/dashboard"},
	}
	for _, tt := range tests {
		if got := safeNext(tt.next); got != tt.want {
			t.Errorf("safeNext(%q) = %q, want %q", tt.next, got, tt.want)
		}
	}
}

func TestCSRFToken(t *testing.T) {
	a, b := csrfToken("token-a"), csrfToken("token-b")
	if a == b || a == "" {
		t.Fatalf("tokens of two sessions: %q and %q", a, b)
	}
	if a != csrfToken("token-a") {
		t.Error("a session's token changes between calls")
	}
	for _, tt := range []struct {
		got, want string
		ok        bool
	}{{a, a, true}, {b, a, false}, {"", a, false}, {"", "", false}, {a[:10], a, false}} {
		if ok := validCSRF(tt.got, tt.want); ok != tt.ok {
			t.Errorf("validCSRF(%q, %q) = %v, want %v", tt.got, tt.want, ok, tt.ok)
		}
	}
}
