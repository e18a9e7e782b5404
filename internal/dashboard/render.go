package dashboard

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strings"

	"github.com/switchyard-gw/switchyard/internal/store"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// layoutFiles are parsed into every page; the other templates are pages,
// each defining "content".
var layoutFiles = []string{"templates/layout.html", "templates/parts.html"}

// page is what the layout needs, and a page's own data in Data.
type page struct {
	Title   string
	Nav     string         // the current navigation item
	Account *store.Account // nil when signed out
	CSRF    string         // the session's token, for forms
	Flash   string         // a notice after a redirect
	Signup  bool           // whether sign-up is offered
	Data    any
}

// parseTemplates parses the layout with each page of fsys. A page that
// does not parse, or defines no content, fails it.
func (d *Dashboard) parseTemplates(fsys fs.FS) (map[string]*template.Template, error) {
	base, err := template.New("layout").Funcs(d.funcs()).Option("missingkey=error").ParseFS(fsys, layoutFiles...)
	if err != nil {
		return nil, fmt.Errorf("dashboard templates: %w", err)
	}
	files, err := fs.Glob(fsys, "templates/*.html")
	if err != nil {
		return nil, fmt.Errorf("dashboard templates: %w", err)
	}
	pages := map[string]*template.Template{}
	for _, f := range files {
		if strings.HasSuffix(f, "/layout.html") || strings.HasSuffix(f, "/parts.html") {
			continue
		}
		t, err := base.Clone()
		if err == nil {
			t, err = t.ParseFS(fsys, f)
		}
		if err != nil {
			return nil, fmt.Errorf("dashboard templates: %w", err)
		}
		if t.Lookup("content") == nil {
			return nil, fmt.Errorf("dashboard templates: %s defines no content", f)
		}
		pages[strings.TrimSuffix(path.Base(f), ".html")] = t
	}
	return pages, nil
}

// render writes the page name with status. The page is rendered in full
// before anything is sent, so a template error becomes a clean 500.
func (d *Dashboard) render(w http.ResponseWriter, r *http.Request, status int, name string, p page) {
	t, ok := d.pages[name]
	var buf bytes.Buffer
	err := fmt.Errorf("no page %q", name)
	if ok {
		p.Signup = d.cfg.AllowSignup
		err = t.ExecuteTemplate(&buf, "layout", p)
	}
	if err != nil {
		d.log.Error("render dashboard page", "page", name, "err", err)
		http.Error(w, "Internal server error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// errorPage is the data of the error page.
type errorPage struct{ Message string }

// renderError renders the error page; the message is shown as it is.
// A signed-in owner keeps the navigation.
func (d *Dashboard) renderError(w http.ResponseWriter, r *http.Request, status int, title, message string) {
	p := page{Title: title, Data: errorPage{message}}
	if s, err := d.loadSession(r); err == nil {
		p.Account, p.CSRF = &s.Account, csrfToken(s.token)
	}
	d.render(w, r, status, "error", p)
}

func (d *Dashboard) notFound(w http.ResponseWriter, r *http.Request) {
	d.renderError(w, r, http.StatusNotFound, "Not found",
		"There is nothing here, or it belongs to another account.")
}

// serverError logs err and renders a 500 page that does not repeat it.
func (d *Dashboard) serverError(w http.ResponseWriter, r *http.Request, err error) {
	d.log.Error("dashboard", "route", r.Pattern, "err", err)
	d.renderError(w, r, http.StatusInternalServerError, "Something went wrong",
		"The server could not do this just now. Try again in a moment.")
}

// staticFile is an embedded asset with its content hash.
type staticFile struct {
	body    []byte
	version string
	ctype   string
}

func loadStatic() (map[string]staticFile, error) {
	out := map[string]staticFile{}
	entries, err := fs.ReadDir(staticFS, "static")
	if err != nil {
		return nil, fmt.Errorf("dashboard static files: %w", err)
	}
	types := map[string]string{".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8"}
	for _, e := range entries {
		body, err := staticFS.ReadFile("static/" + e.Name())
		if err != nil {
			return nil, fmt.Errorf("dashboard static files: %w", err)
		}
		sum := sha256.Sum256(body)
		out[e.Name()] = staticFile{body: body, version: hex.EncodeToString(sum[:6]), ctype: types[path.Ext(e.Name())]}
	}
	return out, nil
}

// serveStatic serves an embedded asset. Pages link it with its content
// hash (?v=), so a versioned request may be cached for good.
func (d *Dashboard) serveStatic(w http.ResponseWriter, r *http.Request) {
	f, ok := d.static[r.PathValue("file")]
	if !ok || f.ctype == "" {
		d.notFound(w, r)
		return
	}
	w.Header().Set("Content-Type", f.ctype)
	if r.URL.Query().Get("v") == f.version {
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		w.Header().Set("Cache-Control", "no-cache")
	}
	w.Write(f.body)
}

// staticURL returns the versioned path of an asset.
func (d *Dashboard) staticURL(name string) (string, error) {
	f, ok := d.static[name]
	if !ok {
		return "", fmt.Errorf("no static file %q", name)
	}
	return Prefix + "/static/" + name + "?v=" + f.version, nil
}

// page returns the layout data of a signed-in owner's page.
func (d *Dashboard) page(r *http.Request, s *session, nav, title string, data any) page {
	return page{Title: title, Nav: nav, Account: &s.Account, CSRF: csrfToken(s.token), Flash: flash(r), Data: data}
}
