package dashboard

import (
	"crypto/rand"
	"errors"
	"net/http"
	"strings"

	"github.com/switchyard-gw/switchyard/internal/password"
	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/usd"
)

// accountRow is one account in the operator's list.
type accountRow struct {
	store.Account
	Spend usd.Amount // this month
}

// accountsPage is the data of the operator's accounts page.
type accountsPage struct {
	Month    string
	Accounts []accountRow // oldest first
	Form     newAccountForm
}

// newAccountForm is the operator's form for a new account, as typed.
type newAccountForm struct {
	Email    string
	Operator bool
	Errors   map[string]string // by field
}

// accountCreatedPage shows a new account and, when the operator left the
// password empty, the generated one: the only time it is shown.
type accountCreatedPage struct {
	Account  store.Account
	Password string
}

func (d *Dashboard) adminAccounts(w http.ResponseWriter, r *http.Request, s *session) {
	d.renderAccounts(w, r, s, http.StatusOK, newAccountForm{})
}

// renderAccounts renders the accounts page with the new-account form as
// given.
func (d *Dashboard) renderAccounts(w http.ResponseWriter, r *http.Request, s *session, status int, f newAccountForm) {
	now := d.now().UTC()
	accts, err := d.store.ListAccounts(r.Context())
	var spend map[string]usd.Amount
	if err == nil {
		spend, err = d.store.SpendByAccount(r.Context(), now.Format("2006-01"))
	}
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	p := accountsPage{Month: now.Format("January 2006"), Form: f}
	for _, a := range accts {
		p.Accounts = append(p.Accounts, accountRow{Account: a, Spend: spend[a.ID]})
	}
	d.render(w, r, status, "admin_accounts", d.page(r, s, "admin-accounts", "Accounts", p))
}

// createAccount creates an account as `switchyard accounts create` does.
// With the password left empty, one is generated and shown once, for
// the operator to hand to the owner (who can change it).
func (d *Dashboard) createAccount(w http.ResponseWriter, r *http.Request, s *session) {
	f := newAccountForm{Email: strings.TrimSpace(r.PostForm.Get("email")), Operator: r.PostForm.Get("operator") == "on",
		Errors: map[string]string{}}
	if !validEmail(f.Email) {
		f.Errors["email"] = "Enter an email address such as owner@example.com."
	}
	hash, generated, problem, err := d.formPassword(r)
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	if problem != "" {
		f.Errors["password"] = problem
	}
	if len(f.Errors) > 0 {
		d.renderAccounts(w, r, s, http.StatusUnprocessableEntity, f)
		return
	}
	a, err := d.store.CreateAccount(r.Context(), store.NewAccount{Email: f.Email, PasswordHash: hash, IsAdmin: f.Operator})
	if errors.Is(err, store.ErrExists) {
		f.Errors["email"] = "An account with this email exists already."
		d.renderAccounts(w, r, s, http.StatusUnprocessableEntity, f)
		return
	}
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	d.log.Info("account created from the dashboard", "account", a.ID, "operator", a.IsAdmin, "by", s.AccountID)
	if generated == "" {
		http.Redirect(w, r, Prefix+"/admin/accounts/"+a.ID+"?msg=account-created", http.StatusSeeOther)
		return
	}
	d.showPassword(w, r, s, "Account created", a, generated)
}

// formPassword hashes the form's "password" field, or a generated
// password when the field is empty, which it then returns too, to be
// shown once. problem is what to say beside the field when the typed one
// will not do.
func (d *Dashboard) formPassword(r *http.Request) (hash, generated, problem string, err error) {
	pw := r.PostForm.Get("password")
	if pw == "" {
		pw = rand.Text()
		generated = pw
	}
	hash, err = d.hashPassword(r.Context(), pw)
	if errors.Is(err, password.ErrTooShort) {
		return "", "", "Use at least 8 characters, or leave it empty to generate a password.", nil
	}
	return hash, generated, "", err
}

// showPassword shows an account's generated password, the only time it
// is shown; the page is never cached.
func (d *Dashboard) showPassword(w http.ResponseWriter, r *http.Request, s *session, title string, a store.Account, pw string) {
	w.Header().Set("Cache-Control", "no-store")
	d.render(w, r, http.StatusOK, "admin_account_created", d.page(r, s, "admin-accounts", title,
		accountCreatedPage{Account: a, Password: pw}))
}
