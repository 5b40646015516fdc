// Package diag holds what a source reports besides its users, in a leaf
// package that the source kinds, the expressions and the mapping rules
// all import: a problem with one key of a configuration block
// (FieldError), and how a source built one user, for
// `orgsync plan --explain` (Trace).
package diag

import "strings"

// FieldError is a problem with one field of a configuration block, named
// by its YAML key path inside the block (for example "users.baseDN"), so
// that the configuration loader can add the file's line.
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

// Err returns errs as one error (a FieldErrors), nil when there are none.
func Err(errs []FieldError) error {
	if len(errs) == 0 {
		return nil
	}
	return FieldErrors(errs)
}

// Trace is how a source built (or skipped) one user.
type Trace struct {
	Source string
	File   string // file or server
	Line   int    // line or row, 0 when not applicable
	Record string // DN or identity
	// DirectoryGroups are the record's directory groups (for LDAP, the
	// groups read that it is in, nested ones included).
	DirectoryGroups []string
	// ExprGroups are the groups the groups expression gave.
	ExprGroups []string
	// Set are the fields the set expressions computed, by name.
	Set map[string]string
	// LeftOut says why the record took no part in the run: "filter" (the
	// filter expression rejected it) or "scope" (it is in none of the
	// run's scope groups); "" when it took part.
	LeftOut string
	// Filter is the filter expression that left the record out.
	Filter string
	// Skipped says why the record was skipped as bad, "" when it was not.
	Skipped string
}
