package dashboard

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/switchyard-gw/switchyard/internal/route"
	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/usd"
)

// accountPage is the data of the operator's page of one account.
type accountPage struct {
	Account store.Account
	Self    bool // the operator's own account
	Keys    []store.Key
	Month   string
	Spend   usd.Amount
	Form    accountForm
}

// accountForm is the form of an account's limits and allow-list, as
// typed.
type accountForm struct {
	Models string
	limitFields
	Errors   map[string]string // by field
	Defaults rateDefaults

	PasswordError string // of the password form below it
}

func (d *Dashboard) adminAccount(w http.ResponseWriter, r *http.Request, s *session) {
	a, err := d.store.AccountByID(r.Context(), r.PathValue("id"))
	if err != nil {
		d.accountError(w, r, err)
		return
	}
	d.renderAccount(w, r, s, http.StatusOK, a, d.savedAccountForm(a))
}

// savedAccountForm is the limits form filled with the account's saved
// values.
func (d *Dashboard) savedAccountForm(a store.Account) accountForm {
	return accountForm{Models: strings.Join(a.Models, ", "), limitFields: limitFieldsOf(a.Limits), Defaults: d.accountDefaults()}
}

// renderAccount renders an account's page with its form as given.
func (d *Dashboard) renderAccount(w http.ResponseWriter, r *http.Request, s *session, status int, a store.Account, f accountForm) {
	now := d.now().UTC()
	keys, err := d.store.ListKeys(r.Context(), a.ID)
	var spend usd.Amount
	if err == nil {
		spend, _, err = d.store.MonthSpend(r.Context(), a.ID, "", now.Format("2006-01"))
	}
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	slices.Reverse(keys)
	p := accountPage{Account: a, Self: a.ID == s.AccountID, Keys: keys, Month: now.Format("January 2006"), Spend: spend, Form: f}
	d.render(w, r, status, "admin_account", d.page(r, s, "admin-accounts", a.Email, p))
}

// updateAccount sets an account's limits and model allow-list, as
// `switchyard limits set` and `accounts update --models` do; every
// server applies them within moments.
func (d *Dashboard) updateAccount(w http.ResponseWriter, r *http.Request, s *session) {
	a, err := d.store.AccountByID(r.Context(), r.PathValue("id"))
	if err != nil {
		d.accountError(w, r, err)
		return
	}
	f := accountForm{Models: r.PostForm.Get("models"), limitFields: readLimitFields(r), Errors: map[string]string{},
		Defaults: d.accountDefaults()}
	u := f.update(f.Errors)
	models, bad := route.ParseAllowList(f.Models)
	if bad != "" {
		f.Errors["models"] = fmt.Sprintf("“%s” is not a model ID (a single * at the end matches a prefix).", bad)
	}
	if len(f.Errors) > 0 {
		d.renderAccount(w, r, s, http.StatusUnprocessableEntity, a, f)
		return
	}
	u.AccountID = a.ID
	err = d.store.SetLimits(r.Context(), u)
	if err == nil && !slices.Equal(models, a.Models) {
		err = d.store.SetAccountModels(r.Context(), a.ID, models)
	}
	d.changed(a.ID)
	if err != nil {
		d.accountError(w, r, err)
		return
	}
	d.log.Info("account limits set from the dashboard", "account", a.ID, "by", s.AccountID)
	http.Redirect(w, r, Prefix+"/admin/accounts/"+a.ID+"?msg=account-saved", http.StatusSeeOther)
}

// disableAccount and enableAccount switch an account off and on. A
// disabled account's keys are refused by every server within moments and
// its owner is signed out; operators cannot disable their own account.
func (d *Dashboard) disableAccount(w http.ResponseWriter, r *http.Request, s *session) {
	d.setDisabled(w, r, s, true)
}

// resetPassword sets another account's password, typed or generated and
// shown once, as `switchyard accounts update --password-stdin` does; the
// owner is signed out everywhere. An operator's own password is changed
// on the password page, which asks for the current one.
func (d *Dashboard) resetPassword(w http.ResponseWriter, r *http.Request, s *session) {
	a, err := d.store.AccountByID(r.Context(), r.PathValue("id"))
	if err != nil {
		d.accountError(w, r, err)
		return
	}
	if a.ID == s.AccountID {
		d.renderError(w, r, http.StatusConflict, "Use the password page",
			"Change your own password on the password page, which asks for the current one.")
		return
	}
	hash, generated, problem, err := d.formPassword(r)
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	if problem != "" {
		f := d.savedAccountForm(a)
		f.PasswordError = problem
		d.renderAccount(w, r, s, http.StatusUnprocessableEntity, a, f)
		return
	}
	if err := d.store.SetPassword(r.Context(), a.ID, hash); err != nil {
		d.accountError(w, r, err)
		return
	}
	d.log.Info("password set from the dashboard", "account", a.ID, "by", s.AccountID)
	if generated == "" {
		http.Redirect(w, r, Prefix+"/admin/accounts/"+a.ID+"?msg=password-set", http.StatusSeeOther)
		return
	}
	d.showPassword(w, r, s, "New password", a, generated)
}

func (d *Dashboard) enableAccount(w http.ResponseWriter, r *http.Request, s *session) {
	d.setDisabled(w, r, s, false)
}

func (d *Dashboard) setDisabled(w http.ResponseWriter, r *http.Request, s *session, disabled bool) {
	id := r.PathValue("id")
	if disabled && id == s.AccountID {
		d.renderError(w, r, http.StatusConflict, "Not disabled",
			"You cannot disable your own account: you would lose the dashboard. Ask another operator.")
		return
	}
	if err := d.store.SetAccountDisabled(r.Context(), id, disabled); err != nil {
		d.accountError(w, r, err)
		return
	}
	d.changed(id)
	msg := "account-enabled"
	if disabled {
		msg = "account-disabled"
	}
	d.log.Info("account "+strings.TrimPrefix(msg, "account-")+" from the dashboard", "account", id, "by", s.AccountID)
	http.Redirect(w, r, Prefix+"/admin/accounts/"+id+"?msg="+msg, http.StatusSeeOther)
}
