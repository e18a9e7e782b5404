package dashboard_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/switchyard-gw/switchyard/internal/dashboard"
)

// hostileValues are what a careless script or an attacker puts in a form
// field: nothing, blanks, overlong text, bytes that are not UTF-8, NUL,
// markup, numbers out of every range and in every spelling.
var hostileValues = []string{
	"", " ", "\t\n", strings.Repeat("a", 20_000), "\xff\xfe\xfd", "a\x00b", "<script>alert(1)</script>",
	"-1", "0", "-0", "1e400", "NaN", "Inf", "+5", "0x10", "9223372036854775808", "18446744073709551616",
	"1.5", "$5", "5,00", "1_000", "２", "../../etc/passwd", "%00", "'; DROP TABLE accounts; --",
	"http://127.0.0.1/x", "javascript:alert(1)", "a@b", "@", "x@y.z\r\nBcc: evil@example.com",
	"gpt-4o,,", ",", "*", "all",
}

// hostileText is a few of hostileValues for the forms that check or hash
// a password, an argon2id hash each time; there every field gets the value
// at once.
var hostileText = []string{"", strings.Repeat("a", 20_000), "\xff\xfe\xfd a\x00b", "<script>alert(1)</script>"}

// TestFormsSurviveHostileInput posts every hostile value into every field
// of every form, and into every query parameter, and checks that each
// answer is a page (or a redirect), never a server error, never the raw
// value echoed as markup, and that the account is still whole after.
func TestFormsSurviveHostileInput(t *testing.T) {
	h, f := everyPageHarness(t)
	dashboard.SetThrottlesForTest(h.D, 1_000_000, 1_000_000)
	owner := h.browser(t)
	owner.signIn(f.owner)
	op := h.browser(t)
	op.signIn(h.operator(t, "ops@example.com"))
	anon := h.browser(t)

	forms := []struct {
		b      *browser
		from   string // a page whose form token the post carries
		action string
		fields []string
		values []string
		slow   bool // every field at once: the form hashes a password
	}{
		{anon, "/dashboard/login", "/dashboard/login", []string{"email", "password", "next"}, hostileText, true},
		{anon, "/dashboard/signup", "/dashboard/signup", []string{"email", "password"}, hostileText, true},
		{owner, "/dashboard/keys/new", "/dashboard/keys", []string{"name", "models", "rpm", "tpm", "budget"}, hostileValues, false},
		{owner, "/dashboard/keys/new", "/dashboard/keys/" + f.ci.ID + "/limits", []string{"rpm", "tpm", "budget"}, hostileValues, false},
		{owner, "/dashboard/keys/new", "/dashboard/alerts", []string{"threshold", "webhook", "email"}, hostileValues, false},
		{owner, "/dashboard/keys/new", "/dashboard/password", []string{"current", "new", "confirm"}, hostileText, true},
		{op, "/dashboard/keys/new", "/dashboard/admin/accounts", []string{"email", "password", "operator"}, hostileText, true},
		{op, "/dashboard/keys/new", "/dashboard/admin/accounts/" + f.other.ID, []string{"rpm", "tpm", "budget", "models"}, hostileValues, false},
		{op, "/dashboard/keys/new", "/dashboard/admin/accounts/" + f.other.ID + "/password", []string{"password"}, hostileText, true},
	}
	check := func(what string, r response) {
		t.Helper()
		if r.StatusCode >= 500 {
			t.Errorf("%s: status %d\n%s", what, r.StatusCode, r.Body)
			return
		}
		if r.StatusCode == http.StatusTemporaryRedirect || r.StatusCode == http.StatusMovedPermanently {
			return // ServeMux cleaning an empty path segment
		}
		if r.StatusCode != http.StatusSeeOther && !strings.Contains(r.Body, "<main") {
			t.Errorf("%s: status %d without a page:\n%s", what, r.StatusCode, r.Body)
		}
		if strings.Contains(r.Body, "<script>alert") {
			t.Errorf("%s: the value is echoed as markup", what)
		}
	}
	for _, form := range forms {
		if form.slow {
			for _, v := range form.values {
				all := url.Values{}
				for _, field := range form.fields {
					all.Set(field, v)
				}
				check("POST "+form.action+" all="+short(v), form.b.submit(form.from, form.action, all))
			}
			continue
		}
		token := form.b.csrf(form.from) // the session's, for every form
		for _, field := range form.fields {
			for _, v := range form.values {
				r := form.b.post(form.action, url.Values{field: {v}, "csrf": {token}})
				check("POST "+form.action+" "+field+"="+short(v), r)
			}
		}
	}

	paths := []string{"/dashboard/usage", "/dashboard/usage.csv"}
	for _, p := range paths {
		for _, field := range []string{"since", "until", "by"} {
			for _, v := range hostileValues {
				r := owner.get(p + "?" + url.Values{field: {v}}.Encode())
				if r.StatusCode >= 500 {
					t.Errorf("GET %s %s=%s: status %d\n%s", p, field, short(v), r.StatusCode, r.Body)
				}
			}
		}
	}
	token := owner.csrf("/dashboard/keys/new")
	for _, v := range hostileValues {
		id := url.PathEscape(v)
		for _, p := range []string{"/dashboard/keys/" + id + "/revoke", "/dashboard/keys/" + id + "/limits"} {
			check("GET "+p, owner.get(p))
			check("POST "+p, owner.post(p, url.Values{"csrf": {token}}))
		}
		check("POST alert remove "+short(v), owner.post("/dashboard/alerts/"+id+"/remove", url.Values{"csrf": {token}}))
		check("GET admin account "+short(v), op.get("/dashboard/admin/accounts/"+id))
		check("GET login next "+short(v), anon.get("/dashboard/login?"+url.Values{"next": {v}}.Encode()))
	}

	// A field that the store cannot hold is named in the answer; a key
	// name with a control character is refused beside the field.
	for _, v := range []string{"a\x00b", "\xff\xfe\xfd"} {
		r := owner.post("/dashboard/keys", url.Values{"name": {v}, "csrf": {token}})
		if r.StatusCode != http.StatusBadRequest || !strings.Contains(r.Body, "The field &#34;name&#34; holds bytes that are not UTF-8 text") {
			t.Errorf("key name %q: status %d\n%s", v, r.StatusCode, r.Body)
		}
	}
	for _, v := range []string{"ci\x1b[31m", "tab\tbed"} {
		r := owner.post("/dashboard/keys", url.Values{"name": {v}, "csrf": {token}})
		if r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(r.Body, "Use printable text: no control characters") {
			t.Errorf("key name %q: status %d\n%s", v, r.StatusCode, r.Body)
		}
	}

	// The owner's session, keys and usage are whole after all that.
	wantStatus(t, "overview after", owner.get("/dashboard"), http.StatusOK)
	keys := owner.get("/dashboard/keys")
	for _, name := range []string{"ci", "bot"} {
		if !strings.Contains(keys.Body, ">"+name+"<") {
			t.Errorf("key %q gone from the keys page", name)
		}
	}
}

func short(v string) string {
	if len(v) > 24 {
		return v[:24] + "…"
	}
	return v
}
