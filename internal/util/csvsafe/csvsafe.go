// Package csvsafe writes CSV that a spreadsheet opens as data: a cell
// starting with a character that makes Excel, LibreOffice or Google Sheets
// read it as a formula (=, +, -, @, a tab or a carriage return) gets a
// single quote in front, as OWASP's CSV-injection guidance says, so that
// no value from a directory or a server runs as a formula. A program
// reading the file gets back every cell as it was, but for that quote,
// which Value takes off.
//
// Writer is the chokepoint: every CSV file orgsync writes (the --report
// files, policy.reportFile) is written through one.
package csvsafe

import (
	"encoding/csv"
	"io"
	"strings"
)

// Writer writes CSV records, each cell neutralized (Cell). Its methods
// are encoding/csv.Writer's.
type Writer struct {
	w    *csv.Writer
	cell []string // reused for each record
}

// NewWriter returns a Writer writing to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: csv.NewWriter(w)} }

// Write writes one record, each of its cells neutralized.
func (w *Writer) Write(record []string) error {
	w.cell = w.cell[:0]
	for _, c := range record {
		w.cell = append(w.cell, Cell(c))
	}
	return w.w.Write(w.cell)
}

// Flush writes what is buffered; Error then says whether a write failed.
func (w *Writer) Flush() { w.w.Flush() }

// Error is the error of an earlier Write or Flush.
func (w *Writer) Error() error { return w.w.Error() }

// Cell returns c as a spreadsheet reads it as data: with a single quote
// in front when it starts with =, +, -, @, a tab or a carriage return.
func Cell(c string) string {
	if Dangerous(c) {
		return "'" + c
	}
	return c
}

// Value is what a cell read back from a file Writer wrote holds: c
// without the quote Cell put in front of a formula. Every reader of a CSV
// file orgsync wrote (scope.usersFile reading the policy.reportFile
// report) reads its cells through it.
func Value(c string) string {
	if rest, ok := strings.CutPrefix(c, "'"); ok && Dangerous(rest) {
		return rest
	}
	return c
}

// Dangerous reports whether a spreadsheet may read cell c as a formula:
// it starts with =, +, -, @, a tab or a carriage return.
func Dangerous(c string) bool {
	if c == "" {
		return false
	}
	switch c[0] {
	case '=', '+', '-', '@', '\t', '\r':
		return true
	}
	return false
}
