package cli

// Readers of the deployment files under deploy/ for deploy_test.go: just
// enough of each format (Dockerfile, systemd unit, nginx, YAML) to find
// the command lines, variables, ports, paths and timeouts they give the
// binary.

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// deployDir is deploy/ from this package's directory.
var deployDir = filepath.Join("..", "..", "deploy")

func readDeploy(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(deployDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// instruction is one Dockerfile instruction: its keyword, upper case, and
// the rest of its (joined) lines.
type instruction struct{ cmd, args string }

// dockerStages splits a Dockerfile into its stages' instructions, joining
// continued lines and dropping comments.
func dockerStages(src string) [][]instruction {
	var stages [][]instruction
	var line strings.Builder
	for _, raw := range strings.Split(src, "\n") {
		trimmed := strings.TrimSpace(raw)
		if strings.HasPrefix(trimmed, "#") || (trimmed == "" && line.Len() == 0) {
			continue
		}
		if cont, ok := strings.CutSuffix(trimmed, `\`); ok {
			line.WriteString(cont + " ")
			continue
		}
		line.WriteString(trimmed)
		cmd, args, _ := strings.Cut(strings.TrimSpace(line.String()), " ")
		line.Reset()
		in := instruction{strings.ToUpper(cmd), strings.TrimSpace(args)}
		if in.cmd == "FROM" || len(stages) == 0 {
			stages = append(stages, nil)
		}
		stages[len(stages)-1] = append(stages[len(stages)-1], in)
	}
	return stages
}

// execForm decodes an instruction's JSON array ("exec form").
func execForm(t *testing.T, in instruction) []string {
	t.Helper()
	var args []string
	if err := json.Unmarshal([]byte(in.args), &args); err != nil {
		t.Fatalf("%s %s: want the exec form, a JSON array: %v", in.cmd, in.args, err)
	}
	return args
}

// dockerEnv reads ENV instructions of the form ENV K=V [K=V ...].
func dockerEnv(t *testing.T, stage []instruction) map[string]string {
	t.Helper()
	env := map[string]string{}
	for _, in := range stage {
		if in.cmd != "ENV" {
			continue
		}
		for _, kv := range strings.Fields(in.args) {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				t.Fatalf("ENV %s: want KEY=value pairs", in.args)
			}
			env[k] = v
		}
	}
	return env
}

// unit is a systemd unit file: section → key → values in order.
type unit map[string]map[string][]string

func parseUnit(t *testing.T, src string) unit {
	t.Helper()
	u := unit{}
	section := ""
	for i, line := range strings.Split(src, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			section = strings.Trim(line, "[]")
			u[section] = map[string][]string{}
		default:
			k, v, ok := strings.Cut(line, "=")
			if !ok || section == "" {
				t.Fatalf("unit line %d: %q is not key=value in a section", i+1, line)
			}
			u[section][k] = append(u[section][k], v)
		}
	}
	return u
}

// one returns the single value of key in section.
func (u unit) one(t *testing.T, section, key string) string {
	t.Helper()
	vs := u[section][key]
	if len(vs) != 1 {
		t.Fatalf("[%s] %s: want one value, got %q", section, key, vs)
	}
	return vs[0]
}

// envFile reads KEY=value lines, and commented-out ones ("#KEY=value")
// as set to "": an example file names what may be set, and the binary
// must read those too.
func envFile(src string) map[string]string {
	env := map[string]string{}
	assign := regexp.MustCompile(`^(#?)([A-Z][A-Z0-9_]*)=(.*)$`)
	for _, line := range strings.Split(src, "\n") {
		if m := assign.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			env[m[2]] = m[3]
			if m[1] == "#" {
				env[m[2]] = ""
			}
		}
	}
	return env
}

// nginxDirectives returns the arguments of every occurrence of a simple
// directive ("name arg ...;"), comments dropped.
func nginxDirectives(src, name string) [][]string {
	var out [][]string
	for _, line := range strings.Split(src, "\n") {
		line, _, _ = strings.Cut(line, "#")
		f := strings.Fields(strings.TrimSuffix(strings.TrimSpace(line), ";"))
		if len(f) > 0 && f[0] == name {
			out = append(out, f[1:])
		}
	}
	return out
}

// yamlDocs decodes every document of a multi-document YAML stream.
func yamlDocs(t *testing.T, src string) []map[string]any {
	t.Helper()
	var docs []map[string]any
	dec := yaml.NewDecoder(bytes.NewReader([]byte(src)))
	for {
		var doc map[string]any
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return docs
		}
		if err != nil {
			t.Fatal(err)
		}
		if doc != nil {
			docs = append(docs, doc)
		}
	}
}

// dig walks maps and lists of decoded YAML by keys (string) and indexes
// (int); nil when a step is missing.
func dig(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			l, _ := v.([]any)
			if k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

// strs converts a decoded YAML list of scalars to strings.
func strs(t *testing.T, v any) []string {
	t.Helper()
	l, ok := v.([]any)
	if !ok {
		t.Fatalf("want a list, got %#v", v)
	}
	out := make([]string, len(l))
	for i, s := range l {
		str, ok := s.(string)
		if !ok {
			t.Fatalf("want strings, got %#v", s)
		}
		out[i] = str
	}
	return out
}

// interpolation is compose's ${NAME}, ${NAME:-default}, ${NAME:?message}.
var interpolation = regexp.MustCompile(`\$\{([A-Z0-9_]+)(?::?[-?][^}]*)?\}`)

// interpolate stands "value-of-NAME" for each variable, as compose would
// with every variable set.
func interpolate(s string) string {
	return interpolation.ReplaceAllString(s, "value-of-$1")
}
