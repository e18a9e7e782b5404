package catalog

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// header is the first line of a catalogue file; columns are in this order.
var header = []string{
	"id", "family", "provider", "upstream_id", "mode",
	"input_usd_per_mtok", "output_usd_per_mtok", "context_window", "max_output_tokens",
	"functions", "vision", "embedding_dimensions",
	"created", "deprecated_on", "sunset_on", "replacement",
	"cached_input_usd_per_mtok",
	"long_context_above_tokens", "long_input_usd_per_mtok", "long_output_usd_per_mtok", "long_cached_input_usd_per_mtok",
	"reasoning", "structured_outputs",
}

// Column indexes into a record, in header order.
const (
	colID = iota
	colFamily
	colProvider
	colUpstreamID
	colMode
	colInputPrice
	colOutputPrice
	colContextWindow
	colMaxOutput
	colFunctions
	colVision
	colEmbeddingDims
	colCreated
	colDeprecatedOn
	colSunsetOn
	colReplacement
	colCachedInputPrice
	colLongAbove
	colLongInputPrice
	colLongOutputPrice
	colLongCachedPrice
	colReasoning
	colStructuredOutputs
)

// Allowed values of the family, provider and mode columns.
var (
	families  = []string{"openai", "anthropic", "google", "meta"}
	providers = []string{"openai", "anthropic", "gemini", "groq", "together", "fireworks", "deepinfra"}
	modes     = []string{string(ModeChat), string(ModeCompletion), string(ModeEmbedding)}
	reasoning = []string{string(ReasoningNone), string(ReasoningEffort), string(ReasoningBudget),
		string(ReasoningAdaptive), string(ReasoningLevel)}
)

// dateLayout is the format of the date columns.
const dateLayout = "2006-01-02"

// Parse parses a catalogue in the models.csv format from r: a header line,
// then one model per line. It validates every cell and reports the first
// problem as "line N, column C (name): ...".
func Parse(r io.Reader) (*Catalog, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = len(header)
	if err := readHeader(cr); err != nil {
		return nil, err
	}
	var models []*Model
	firstLine := map[string]int{} // id → line it is on
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err // a *csv.ParseError, which names the line
		}
		line, _ := cr.FieldPos(0)
		m, err := parseRow(rec)
		if err == nil {
			if first, dup := firstLine[m.ID]; dup {
				err = &cellError{col: colID, err: fmt.Errorf("duplicate id %q (first on line %d)", m.ID, first)}
			}
		}
		if err != nil {
			var ce *cellError
			if errors.As(err, &ce) {
				line, _ = cr.FieldPos(ce.col)
			}
			return nil, fmt.Errorf("line %d, %w", line, err)
		}
		firstLine[m.ID] = line
		models = append(models, m)
	}
	return newCatalog(models), nil
}

// readHeader reads the header line and checks it names the columns in
// order.
func readHeader(cr *csv.Reader) error {
	rec, err := cr.Read()
	if err == io.EOF {
		return errors.New("line 1: missing header")
	}
	if err != nil {
		return err
	}
	for i, name := range header {
		if rec[i] != name {
			return fmt.Errorf("line 1, %w", &cellError{col: i, err: fmt.Errorf("header is %q, want %q", rec[i], name)})
		}
	}
	return nil
}

// cellError is a problem with one cell of a record.
type cellError struct {
	col int
	err error
}

func (e *cellError) Error() string {
	return fmt.Sprintf("column %d (%s): %v", e.col+1, header[e.col], e.err)
}

func (e *cellError) Unwrap() error { return e.err }

// parseRow turns one record into a model.
func parseRow(rec []string) (*Model, error) {
	p := &rowParser{rec: rec}
	m := &Model{
		ID:              p.id(colID),
		Family:          p.oneOf(colFamily, families),
		Provider:        p.oneOf(colProvider, providers),
		UpstreamID:      p.required(colUpstreamID),
		Mode:            Mode(p.oneOf(colMode, modes)),
		InputPrice:      p.price(colInputPrice, true),
		OutputPrice:     p.price(colOutputPrice, false),
		ContextWindow:   p.count(colContextWindow),
		MaxOutputTokens: p.count(colMaxOutput),
		Functions:       p.flag(colFunctions),
		Vision:          p.flag(colVision),
		EmbeddingDims:   p.count(colEmbeddingDims),
		Created:         p.date(colCreated),
		DeprecatedOn:    p.date(colDeprecatedOn),
		SunsetOn:        p.date(colSunsetOn),
		Replacement:     p.optionalID(colReplacement),

		CachedInputPrice: p.price(colCachedInputPrice, false),
		LongContext: LongContext{
			Above:            p.count(colLongAbove),
			InputPrice:       p.price(colLongInputPrice, false),
			OutputPrice:      p.price(colLongOutputPrice, false),
			CachedInputPrice: p.price(colLongCachedPrice, false),
		},
		Reasoning:         Reasoning(p.oneOf(colReasoning, reasoning)),
		StructuredOutputs: p.flag(colStructuredOutputs),
	}
	p.check(m)
	if p.err != nil {
		return nil, p.err
	}
	m.Deployments = []Deployment{{Provider: m.Provider, UpstreamID: m.UpstreamID}}
	return m, nil
}

// rowParser parses the cells of one record, keeping the first error.
type rowParser struct {
	rec []string
	err error
}

func (p *rowParser) fail(col int, format string, args ...any) {
	if p.err == nil {
		p.err = &cellError{col: col, err: fmt.Errorf(format, args...)}
	}
}

// check validates what involves more than one cell.
func (p *rowParser) check(m *Model) {
	embedding := m.Mode == ModeEmbedding
	switch {
	case p.err != nil: // report the first bad cell only
	case !embedding && p.rec[colOutputPrice] == "":
		p.fail(colOutputPrice, "required for %s models", m.Mode)
	case embedding && m.EmbeddingDims == 0:
		p.fail(colEmbeddingDims, "required for embedding models")
	case !embedding && m.EmbeddingDims != 0:
		p.fail(colEmbeddingDims, "must be empty for %s models", m.Mode)
	case !m.DeprecatedOn.IsZero() && !m.SunsetOn.IsZero() && m.SunsetOn.Before(m.DeprecatedOn):
		p.fail(colSunsetOn, "before deprecated_on")
	case m.Replacement == m.ID:
		p.fail(colReplacement, "a model cannot replace itself")
	case m.CachedInputPrice > m.InputPrice:
		p.fail(colCachedInputPrice, "above the input price")
	case embedding && p.rec[colCachedInputPrice] != "":
		p.fail(colCachedInputPrice, "must be empty for embedding models")
	case embedding && m.LongContext.Above != 0:
		p.fail(colLongAbove, "must be empty for embedding models")
	case m.LongContext.Above == 0 && (p.rec[colLongInputPrice] != "" || p.rec[colLongOutputPrice] != "" || p.rec[colLongCachedPrice] != ""):
		p.fail(colLongAbove, "required with long-context prices")
	case m.LongContext.Above != 0 && p.rec[colLongInputPrice] == "":
		p.fail(colLongInputPrice, "required with long_context_above_tokens")
	case m.LongContext.Above != 0 && p.rec[colLongOutputPrice] == "":
		p.fail(colLongOutputPrice, "required with long_context_above_tokens")
	case m.LongContext.CachedInputPrice > m.LongContext.InputPrice:
		p.fail(colLongCachedPrice, "above the long-context input price")
	case m.Mode != ModeChat && m.Reasoning != ReasoningNone:
		p.fail(colReasoning, "must be empty for %s models", m.Mode)
	case m.Mode != ModeChat && m.StructuredOutputs:
		p.fail(colStructuredOutputs, "must be empty for %s models", m.Mode)
	}
}

func (p *rowParser) required(col int) string {
	if p.rec[col] == "" {
		p.fail(col, "required")
	}
	return p.rec[col]
}

func (p *rowParser) id(col int) string {
	s := p.required(col)
	if strings.ContainsFunc(s, unicode.IsSpace) {
		p.fail(col, "%q contains white space", s)
	}
	return s
}

func (p *rowParser) optionalID(col int) string {
	if p.rec[col] == "" {
		return ""
	}
	return p.id(col)
}

func (p *rowParser) oneOf(col int, allowed []string) string {
	s := p.rec[col]
	if !slices.Contains(allowed, s) {
		p.fail(col, "%q is not one of %s", s, strings.Join(allowed, ", "))
	}
	return s
}

func (p *rowParser) price(col int, required bool) Price {
	s := p.rec[col]
	if s == "" {
		if required {
			p.fail(col, "required")
		}
		return 0
	}
	v, err := ParsePrice(s)
	if err != nil {
		p.fail(col, "%v", err)
	}
	return v
}

// count parses a positive integer; empty means unknown (0).
func (p *rowParser) count(col int) int {
	s := p.rec[col]
	if s == "" {
		return 0
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 || !isDigits(s) {
		p.fail(col, "%q is not a positive integer", s)
	}
	return n
}

func (p *rowParser) flag(col int) bool {
	switch p.rec[col] {
	case "true":
		return true
	case "false":
		return false
	}
	p.fail(col, "%q is not true or false", p.rec[col])
	return false
}

// date parses a YYYY-MM-DD date (midnight UTC); empty means none.
func (p *rowParser) date(col int) time.Time {
	s := p.rec[col]
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(dateLayout, s)
	if err != nil {
		p.fail(col, "%q is not a date (YYYY-MM-DD)", s)
	}
	return t
}
