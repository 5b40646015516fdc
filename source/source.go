// Package source defines what every source adapter (CSV, YAML, LDAP) gives
// the run: desired users with their target groups, plus the problems found in
// the input, each with its location. Subpackages implement it; Merge combines
// several sources with a stated precedence.
package source

import (
	"context"
	"fmt"
	"strings"

	"github.com/orgsync/orgsync/reconcile"
)

// Source reads one input and returns the desired users with their target
// groups already mapped. Read fails as a whole (returns an error) when the
// input cannot be trusted to be complete: an unreachable server, a missing
// file, a mapped directory group that does not exist. A bad record is not
// such a failure: it is reported in Result.Problems and skipped.
type Source interface {
	// Name identifies the source in messages, e.g. "sources[0] (csv users.csv)".
	Name() string
	Read(ctx context.Context) (*Result, error)
}

// Result is what one source read.
type Result struct {
	Users    []reconcile.User
	Problems []Problem
}

// Problem is one bad record or value, skipped, with where it is and why.
type Problem struct {
	Source string // source name
	File   string // file or server the record came from
	Line   int    // line or row number (1-based), 0 when not applicable
	Record string // record identity when known (email, DN)
	Field  string // field or column
	Reason string // what is wrong and what to do
}

func (p Problem) String() string {
	loc := p.File
	if p.Line > 0 {
		loc = fmt.Sprintf("%s:%d", loc, p.Line)
	}
	if p.Record != "" {
		loc += " " + p.Record
	}
	if p.Field != "" {
		return fmt.Sprintf("%s: %s: %s", loc, p.Field, p.Reason)
	}
	return fmt.Sprintf("%s: %s", loc, p.Reason)
}

// FieldError is a problem with one field of a source's configuration, named
// by its YAML key path inside the source's block (for example
// "users.baseDN"), so that the config loader can add the file's line.
type FieldError struct {
	Field  string
	Reason string
}

func (e FieldError) Error() string { return e.Field + ": " + e.Reason }

// FieldErrors is several configuration problems reported at once (for
// example by mapping.New). Callers get at the list with errors.As.
type FieldErrors []FieldError

func (e FieldErrors) Error() string {
	msgs := make([]string, len(e))
	for i, fe := range e {
		msgs[i] = fe.Error()
	}
	return strings.Join(msgs, "; ")
}
