// Package csvfile is the CSV source: a UTF-8 file (with or without BOM),
// or one in the encoding its configuration names, with a header row and one user a row, delimited by commas, semicolons or
// tabs. The groups column holds directory group names, which the mapping
// rules turn into target groups. Bad rows are reported with their line and
// skipped; a file that cannot be read or parsed fails the source.
package csvfile

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/orgsync/orgsync/internal/util/suggest"
	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/diag"
	"github.com/orgsync/orgsync/source/internal/textenc"
	"github.com/orgsync/orgsync/source/internal/userrec"
)

// DefaultGroupSeparator separates the group names inside the groups column
// unless Config.GroupSeparator says otherwise. With comma-delimited files
// a groups cell holding several groups is quoted: "design,eng".
const DefaultGroupSeparator = ","

// Config configures a CSV source (the `csv:` block of a source).
type Config struct {
	// Path is the CSV file. Required.
	Path string `yaml:"path"`
	// Delimiter is "auto" (the default: the most frequent of comma,
	// semicolon and tab in the header row, comma when none), ",", ";",
	// "tab" or "\t".
	Delimiter string `yaml:"delimiter,omitempty"`
	// GroupSeparator separates groups in the groups column; default ",".
	GroupSeparator string `yaml:"groupSeparator,omitempty"`
	// Encoding is the file's character encoding: utf-8 (the default),
	// utf-16 (byte order mark detected), utf-16le, utf-16be, latin1 or
	// windows-1252. A value that is not UTF-8 in a utf-8 file makes its
	// record bad.
	Encoding string `yaml:"encoding,omitempty"`
	// Columns names the header column of each field.
	Columns Columns `yaml:"columns,omitempty"`
	// ShortRows is what a row with fewer fields than the header is:
	// ShortRowsRefuse (the default), a bad record; ShortRowsEmpty, read
	// with the missing trailing fields empty, as the incumbent tool's CSV
	// reader reads it.
	ShortRows string `yaml:"shortRows,omitempty"`
	// Defaults for fields a row leaves empty.
	source.Defaults `yaml:",inline"`
}

// What a row with fewer fields than the header is (Config.ShortRows).
const (
	ShortRowsRefuse = "refuse"
	ShortRowsEmpty  = "empty"
)

// Columns are the header names of the fields, matched case-insensitively.
// Each defaults to its field's name: firstname, lastname, email, country,
// groups, type, username, domain.
type Columns struct {
	FirstName string `yaml:"firstname,omitempty"`
	LastName  string `yaml:"lastname,omitempty"`
	Email     string `yaml:"email,omitempty"`
	Country   string `yaml:"country,omitempty"`
	Groups    string `yaml:"groups,omitempty"`
	Type      string `yaml:"type,omitempty"`
	Username  string `yaml:"username,omitempty"`
	Domain    string `yaml:"domain,omitempty"`
}

// names returns the column name of every field, defaults applied.
func (c *Columns) names() [userrec.NumFields]string {
	names := userrec.DefaultNames()
	given := [userrec.NumFields]string{
		userrec.FirstName: c.FirstName, userrec.LastName: c.LastName, userrec.Email: c.Email, userrec.Country: c.Country,
		userrec.Groups: c.Groups, userrec.Type: c.Type, userrec.Username: c.Username, userrec.Domain: c.Domain,
	}
	for f, n := range given {
		if n = strings.TrimSpace(n); n != "" {
			names[f] = n
		}
	}
	return names
}

// Validate reports every problem of the configuration, each named by its
// key relative to the block ("path", "columns.email").
func (c *Config) Validate() []diag.FieldError {
	var errs []diag.FieldError
	if strings.TrimSpace(c.Path) == "" {
		errs = append(errs, diag.FieldError{Field: "path", Reason: "required: the CSV file to read"})
	}
	if err := textenc.Check(c.Encoding); err != nil {
		errs = append(errs, diag.FieldError{Field: "encoding", Reason: err.Error()})
	}
	if _, err := delimiter(c.Delimiter); err != nil {
		errs = append(errs, diag.FieldError{Field: "delimiter", Reason: err.Error()})
	}
	if r := c.ShortRows; r != "" && r != ShortRowsRefuse && r != ShortRowsEmpty {
		errs = append(errs, diag.FieldError{Field: "shortRows", Reason: fmt.Sprintf("%q: use %s (a short row is a bad record) or %s (its missing trailing fields are empty)", r, ShortRowsRefuse, ShortRowsEmpty)})
	}
	if c.GroupSeparator != "" && strings.TrimSpace(c.GroupSeparator) == "" {
		errs = append(errs, diag.FieldError{Field: "groupSeparator", Reason: "must not be blank"})
	}
	names := c.Columns.names()
	defaults := userrec.DefaultNames()
	for f, n := range names {
		for g := range f {
			if strings.EqualFold(n, names[g]) {
				errs = append(errs, diag.FieldError{Field: "columns." + defaults[f],
					Reason: fmt.Sprintf("column %q is already the %s column", n, defaults[g])})
			}
		}
	}
	return append(errs, c.Defaults.Validate()...)
}

// delimiter returns the delimiter a Config value names; 0 means auto-detect.
func delimiter(s string) (rune, error) {
	switch s {
	case "", "auto":
		return 0, nil
	case ",", ";":
		return rune(s[0]), nil
	case "tab", "\t", `\t`:
		return '\t', nil
	}
	return 0, fmt.Errorf("%q is not a delimiter: use auto, \",\", \";\" or tab", s)
}

// Label returns the file's base name (source.Config).
func (c *Config) Label() string { return filepath.Base(c.Path) }

// Uses returns the file; every column that is no user field's is an
// extra attribute (source.Config).
func (c *Config) Uses() source.Uses { return source.Uses{Files: []*string{&c.Path}} }

// Source reads one CSV file.
// With expressions (source.Options.Expressions), every column that is no
// user field's is an extra attribute, named by its header.
type Source struct {
	name string
	cfg  Config
	opts source.Options
}

// Open returns the source named name for a valid configuration
// (source.Config). The file is read by Read, each time anew.
func (c *Config) Open(name string, o source.Options) (source.Source, error) {
	if err := diag.Err(c.Validate()); err != nil {
		return nil, err
	}
	cfg := *c
	if cfg.GroupSeparator == "" {
		cfg.GroupSeparator = DefaultGroupSeparator
	}
	return &Source{name: name, cfg: cfg, opts: o}, nil
}

// Name returns the source's name.
func (s *Source) Name() string { return s.name }

// Read reads the whole file. It fails when the file cannot be opened or
// parsed, lacks a required column, or holds no valid user.
func (s *Source) Read(ctx context.Context) (*source.Result, error) {
	f, err := os.Open(s.cfg.Path)
	if err != nil {
		return nil, fmt.Errorf("cannot read the CSV file: %w", err)
	}
	defer f.Close()
	size := int64(0)
	if st, err := f.Stat(); err == nil {
		size = st.Size()
	}
	return s.read(ctx, f, size)
}

// read parses a whole CSV stream named s.cfg.Path of about size bytes.
func (s *Source) read(ctx context.Context, in io.Reader, size int64) (*source.Result, error) {
	br := bufio.NewReaderSize(textenc.NewReader(s.cfg.Encoding, in), 1<<16)
	if !textenc.Decodes(s.cfg.Encoding) {
		head, _ := br.Peek(br.Size())
		if err := textenc.UTF16Unset(head); err != nil {
			return nil, fmt.Errorf("%s: %w", s.cfg.Path, err)
		}
	}
	if bom, _ := br.Peek(3); bytes.Equal(bom, []byte("\xef\xbb\xbf")) {
		_, _ = br.Discard(3)
	}
	comma, _ := delimiter(s.cfg.Delimiter)
	if comma == 0 {
		comma = detectDelimiter(br)
	}
	r := csv.NewReader(br)
	r.Comma, r.FieldsPerRecord, r.ReuseRecord = comma, -1, true
	cols, err := s.header(r)
	if err != nil {
		return nil, err
	}
	b := userrec.New(s.name, s.cfg.Path, s.cfg.Columns.names(), s.cfg.Defaults, s.opts)
	if !textenc.Decodes(s.cfg.Encoding) { // the estimate compares the buffer with the file's size
		b.Reserve(estimateRows(br, size))
	}
	if err := s.rows(ctx, r, cols, b); err != nil {
		return nil, err
	}
	return b.Result()
}

// columns holds the position of each field's column in a row, -1 when the
// header lacks it, and the header's width.
type columns struct {
	pos   [userrec.NumFields]int
	width int
	// other are the columns of no field: the record's extra attributes,
	// named by their header (trimmed), when expressions need them.
	other []otherColumn
}

type otherColumn struct {
	name string
	pos  int
}

// header reads the header row and finds the columns.
func (s *Source) header(r *csv.Reader) (columns, error) {
	head, err := r.Read()
	if errors.Is(err, io.EOF) {
		return columns{}, fmt.Errorf("%s: the file is empty: a header row naming the columns (e.g. firstname,lastname,email,country,groups) is required", s.cfg.Path)
	}
	if err != nil {
		return columns{}, parseError(s.cfg.Path, err)
	}
	cols := columns{width: len(head)}
	names := s.cfg.Columns.names()
	for f, name := range names {
		cols.pos[f] = -1
		for i, h := range head {
			if strings.EqualFold(strings.TrimSpace(h), name) {
				cols.pos[f] = i
				break
			}
		}
	}
	if err := s.misspeltColumn(head, cols.pos, names); err != nil {
		return columns{}, err
	}
	if p := s.opts.Expressions; p != nil {
		cols.other = otherColumns(head, cols.pos)
		if err := p.CheckAttributes(cols.otherNames()); err != nil {
			return columns{}, fmt.Errorf("%s:1: %w", s.cfg.Path, err)
		}
	}
	hasUsername := cols.pos[userrec.Username] >= 0 && (cols.pos[userrec.Domain] >= 0 || s.cfg.Defaults.Domain != "")
	if cols.pos[userrec.Email] < 0 && !hasUsername {
		return columns{}, fmt.Errorf("%s:1: the header has no %q column (it has %s): name the email column with columns.email, or give username and domain columns",
			s.cfg.Path, names[userrec.Email], strings.Join(quoteAll(head), ", "))
	}
	return cols, nil
}

// misspeltColumn returns an error for a column of no field whose header
// is a misspelling of the header of a field the file lacks ("group" for
// groups, "e-mail" for email): read as it is, the field would be empty for
// every user (a missing groups column takes every managed group away).
// With expressions, such columns are extra attributes, and not checked.
func (s *Source) misspeltColumn(head []string, pos [userrec.NumFields]int, names [userrec.NumFields]string) error {
	if s.opts.Expressions != nil {
		return nil
	}
	var missing []string
	for f, n := range names {
		if pos[f] < 0 {
			missing = append(missing, n)
		}
	}
	for _, c := range otherColumns(head, pos) {
		if near := suggest.Nearest(c.name, missing); near != "" {
			return fmt.Errorf("%s:1: the header has a column %q and no %q column: rename the column to %s (or name it with columns.%s): as it is, the column is ignored",
				s.cfg.Path, c.name, near, near, fieldKey(names, near))
		}
	}
	return nil
}

// fieldKey returns the columns key (firstname, groups, ...) of the field
// whose column is named name.
func fieldKey(names [userrec.NumFields]string, name string) string {
	defaults := userrec.DefaultNames()
	for f, n := range names {
		if n == name {
			return defaults[f]
		}
	}
	return name
}

// otherNames returns the names of the columns of no field.
func (c *columns) otherNames() []string {
	names := make([]string, len(c.other))
	for i, o := range c.other {
		names[i] = o.name
	}
	return names
}

// otherColumns lists the columns of head that are no field's (pos).
func otherColumns(head []string, pos [userrec.NumFields]int) []otherColumn {
	var out []otherColumn
	for i, h := range head {
		if h = strings.TrimSpace(h); h != "" && !slices.Contains(pos[:], i) {
			out = append(out, otherColumn{name: h, pos: i})
		}
	}
	return out
}

// rows reads every data row into b.
func (s *Source) rows(ctx context.Context, r *csv.Reader, cols columns, b *userrec.Builder) error {
	var rec userrec.Record
	if len(cols.other) > 0 {
		rec.Attributes = make(map[string]string, len(cols.other))
	}
	for n := 0; ; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return fmt.Errorf("%s: %w", s.cfg.Path, ctx.Err())
		}
		row, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return parseError(s.cfg.Path, err)
		}
		line, _ := r.FieldPos(0)
		for len(row) < cols.width && s.cfg.ShortRows == ShortRowsEmpty {
			row = append(row, "")
		}
		if len(row) != cols.width {
			b.Skip(line, fmt.Sprintf("has %d fields but the header has %d: quote fields that contain the delimiter %q", len(row), cols.width, r.Comma))
			continue
		}
		rec.Line = line
		for f, i := range cols.pos {
			rec.Values[f] = ""
			if i >= 0 {
				rec.Values[f] = row[i]
			}
		}
		for _, c := range cols.other {
			rec.Attributes[c.name] = row[c.pos]
		}
		rec.Groups = splitGroups(rec.Groups[:0], rec.Values[userrec.Groups], s.cfg.GroupSeparator)
		b.Add(&rec)
	}
}

// splitGroups appends the non-empty, trimmed group names of cell to dst.
func splitGroups(dst []string, cell, sep string) []string {
	for cell != "" {
		g, rest, _ := strings.Cut(cell, sep)
		if g = strings.TrimSpace(g); g != "" {
			dst = append(dst, g)
		}
		cell = rest
	}
	return dst
}

// estimateRows estimates the rows of a file of size bytes from the length
// of the lines in br's buffer.
func estimateRows(br *bufio.Reader, size int64) int {
	head, _ := br.Peek(br.Size())
	lines := bytes.Count(head, []byte{'\n'})
	if lines == 0 || size <= 0 {
		return 0
	}
	return int(size*int64(lines)/int64(len(head))) + 16
}

// detectDelimiter returns the most frequent of comma, semicolon and tab
// outside quotes in the first line, comma when none occurs.
func detectDelimiter(br *bufio.Reader) rune {
	head, _ := br.Peek(br.Size())
	if i := bytes.IndexByte(head, '\n'); i >= 0 {
		head = head[:i]
	}
	counts := map[byte]int{}
	quoted := false
	for _, c := range head {
		switch {
		case c == '"':
			quoted = !quoted
		case !quoted && (c == ',' || c == ';' || c == '\t'):
			counts[c]++
		}
	}
	best := byte(',')
	for _, c := range []byte{';', '\t'} {
		if counts[c] > counts[best] {
			best = c
		}
	}
	return rune(best)
}

// parseError explains a CSV syntax error, which fails the whole file: a
// broken quote may swallow the rows after it. It names the line where the
// broken record starts (the quote to look at is there, or on a line of
// the record) and, when the parser went on past it, where it gave up.
func parseError(path string, err error) error {
	var pe *csv.ParseError
	if !errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", path, err)
	}
	const advice = "a field holding a quote, the delimiter or a line break must be enclosed in double quotes, with each quote inside doubled"
	if pe.StartLine == 0 || pe.StartLine == pe.Line {
		return fmt.Errorf("%s:%d:%d: %w; %s", path, pe.Line, pe.Column, pe.Err, advice)
	}
	return fmt.Errorf("%s:%d: the record starting on line %d is broken: %w (the parser gave up at line %d, column %d, reading the lines after it as part of one quoted field); %s",
		path, pe.StartLine, pe.StartLine, pe.Err, pe.Line, pe.Column, advice)
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}
