package dashboard

import (
	"strings"
	"testing"
	"testing/fstest"
)

// TestTemplatesCheckedAtBoot checks that a broken page fails
// parseTemplates, so that New refuses to start.
func TestTemplatesCheckedAtBoot(t *testing.T) {
	layout := &fstest.MapFile{Data: []byte(`{{define "layout"}}<main>{{template "content" .}}</main>{{end}}`)}
	parts := &fstest.MapFile{Data: []byte(`{{define "chart"}}{{end}}`)}
	tests := []struct {
		name, page, want string
	}{
		{"ok", `{{define "content"}}<p>{{.Title}}</p>{{end}}`, ""},
		{"syntax error", `{{define "content"}}{{if .Title}}{{end}}`, "unexpected EOF"},
		{"unknown function", `{{define "content"}}{{nosuch .Title}}{{end}}`, `function "nosuch" not defined`},
		{"no content", `<p>hi</p>`, "defines no content"},
	}
	d := &Dashboard{static: map[string]staticFile{}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := fstest.MapFS{"templates/layout.html": layout, "templates/parts.html": parts,
				"templates/page.html": &fstest.MapFile{Data: []byte(tt.page)}}
			pages, err := d.parseTemplates(fsys)
			if tt.want == "" {
				if err != nil || pages["page"] == nil {
					t.Fatalf("parseTemplates: %v, pages %v", err, pages)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("parseTemplates: %v, want an error containing %q", err, tt.want)
			}
		})
	}
}
