package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Load builds the configuration: embedded defaults, then the YAML file at
// path (when path is not empty), then the SWITCHYARD_* environment
// variables read through getenv; the result is validated. Every error names
// the key at fault and what was expected.
func Load(path string, getenv func(string) string) (*Config, error) {
	c := Default()
	if path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("config: %w", err)
		}
		if err := decodeYAML(data, &c); err != nil {
			return nil, fmt.Errorf("config %s: %w", path, err)
		}
	}
	applyEnv(&c, getenv)
	if err := tracingFromEnv(&c.Tracing, getenv); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	providersFromEnv(&c, getenv)
	fillProviderDefaults(&c)
	resolveKeys(&c, getenv)
	if c.Metrics.BearerTokenEnv != "" {
		c.Metrics.BearerToken = getenv(c.Metrics.BearerTokenEnv)
	}
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return &c, nil
}

// applyEnv applies the environment overrides of DESIGN.md's operator
// interface.
func applyEnv(c *Config, getenv func(string) string) {
	if v := getenv("SWITCHYARD_LISTEN"); v != "" {
		c.Server.Listen = v
	}
	if v := getenv("SWITCHYARD_DATABASE_URL"); v != "" {
		c.Database.URL = v
	}
	if v := getenv("SWITCHYARD_REDIS_URL"); v != "" {
		c.Redis.URL = v
	}
	if v := getenv("SWITCHYARD_SMTP_PASSWORD"); v != "" {
		c.Alerts.SMTP.Password = v
	}
}

// decodeYAML decodes data onto dst key by key, so that an error can name
// the dotted key ("server.read_timeout") instead of a Go type.
func decodeYAML(data []byte, dst *Config) error {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil // an empty file keeps the defaults
		}
		return err
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return fmt.Errorf("line %d: expected one YAML document", extra.Line)
	}
	if len(doc.Content) == 0 {
		return nil
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode && !(top.Kind == yaml.ScalarNode && top.Tag == "!!null") {
		return fmt.Errorf("line %d: the top level must be a mapping of keys (server, database, ...)", top.Line)
	}
	return decodeNode(top, reflect.ValueOf(dst).Elem(), "")
}

var durationType = reflect.TypeFor[time.Duration]()

// defaulter is a list item with defaults of its own (a deployment's
// weight), set before the item's keys are decoded.
type defaulter interface{ setDefaults() }

func decodeNode(n *yaml.Node, v reflect.Value, key string) error {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	switch {
	case v.Kind() == reflect.Struct:
		return decodeStruct(n, v, key)
	case v.Type() == durationType:
		return decodeDuration(n, v, key)
	case v.Kind() == reflect.Slice:
		return decodeSlice(n, v, key)
	case v.Kind() == reflect.Map:
		return decodeMap(n, v, key)
	}
	return decodeScalar(n, v, key)
}

func decodeStruct(n *yaml.Node, v reflect.Value, key string) error {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return keyErr(n, key, "expected a mapping of keys")
	}
	fields := map[string]int{}
	for i := 0; i < v.NumField(); i++ {
		name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("yaml"), ",")
		if name != "" && name != "-" {
			fields[name] = i
		}
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		full := joinKey(key, k.Value)
		if line, dup := seen[k.Value]; dup {
			return keyErr(k, full, fmt.Sprintf("key repeated (first on line %d)", line))
		}
		seen[k.Value] = k.Line
		idx, ok := fields[k.Value]
		if !ok {
			return keyErr(k, full, "unknown key")
		}
		if err := decodeNode(val, v.Field(idx), full); err != nil {
			return err
		}
	}
	return nil
}

func decodeDuration(n *yaml.Node, v reflect.Value, key string) error {
	if n.Kind != yaml.ScalarNode {
		return keyErr(n, key, "expected a duration such as \"30s\" or \"500ms\"")
	}
	d, err := time.ParseDuration(n.Value)
	if err != nil {
		return keyErr(n, key, fmt.Sprintf("expected a duration such as \"30s\" or \"500ms\", got %q", n.Value))
	}
	v.SetInt(int64(d))
	return nil
}

func decodeSlice(n *yaml.Node, v reflect.Value, key string) error {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		v.Set(reflect.Zero(v.Type()))
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		return keyErr(n, key, "expected a list")
	}
	s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, item := range n.Content {
		if d, ok := s.Index(i).Addr().Interface().(defaulter); ok {
			d.setDefaults()
		}
		if err := decodeNode(item, s.Index(i), fmt.Sprintf("%s[%d]", key, i)); err != nil {
			return err
		}
	}
	v.Set(s)
	return nil
}

func decodeMap(n *yaml.Node, v reflect.Value, key string) error {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return keyErr(n, key, "expected a mapping")
	}
	m := reflect.MakeMapWithSize(v.Type(), len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		elem := reflect.New(v.Type().Elem()).Elem()
		if err := decodeNode(val, elem, key+"."+k.Value); err != nil {
			return err
		}
		m.SetMapIndex(reflect.ValueOf(k.Value), elem)
	}
	v.Set(m)
	return nil
}

func decodeScalar(n *yaml.Node, v reflect.Value, key string) error {
	if n.Kind != yaml.ScalarNode {
		return keyErr(n, key, "expected a single "+kindName(v.Kind()))
	}
	switch v.Kind() {
	case reflect.String:
		if n.Tag != "!!str" && n.Tag != "!!int" && n.Tag != "!!float" {
			return keyErr(n, key, fmt.Sprintf("expected a string, got %q", n.Value))
		}
		v.SetString(n.Value)
	case reflect.Bool:
		b, err := strconv.ParseBool(n.Value)
		if err != nil || n.Tag != "!!bool" {
			return keyErr(n, key, fmt.Sprintf("expected true or false, got %q", n.Value))
		}
		v.SetBool(b)
	case reflect.Int, reflect.Int64:
		i, err := strconv.ParseInt(n.Value, 0, 64)
		if err != nil || n.Tag != "!!int" {
			return keyErr(n, key, fmt.Sprintf("expected an integer, got %q", n.Value))
		}
		v.SetInt(i)
	case reflect.Float64:
		f, err := strconv.ParseFloat(n.Value, 64)
		if err != nil || (n.Tag != "!!float" && n.Tag != "!!int") {
			return keyErr(n, key, fmt.Sprintf("expected a number, got %q", n.Value))
		}
		v.SetFloat(f)
	default:
		return keyErr(n, key, "unsupported value")
	}
	return nil
}

func kindName(k reflect.Kind) string {
	switch k {
	case reflect.Int, reflect.Int64:
		return "integer"
	case reflect.Float64:
		return "number"
	case reflect.Bool:
		return "boolean"
	}
	return "string"
}

func joinKey(parent, k string) string {
	if parent == "" {
		return k
	}
	return parent + "." + k
}

func keyErr(n *yaml.Node, key, msg string) error {
	return fmt.Errorf("line %d: %s: %s", n.Line, key, msg)
}
