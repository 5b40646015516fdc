package source

import "strings"

// Explainer is a source that can say how it built one user's groups and
// fields, for `orgsync plan --explain`: Explain asks it to fill
// Result.Traces for the records of that user.
type Explainer interface {
	// Explain names the user by email or username (letter case ignored).
	Explain(user string)
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

// Explains reports whether a user known by email and username is the one
// named (by email or username, letter case ignored). An empty name
// explains nobody.
func Explains(name, email, username string) bool {
	return name != "" && (strings.EqualFold(name, email) || strings.EqualFold(name, username))
}
