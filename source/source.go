// Package source defines what every source kind (CSV, YAML, LDAP, Entra
// ID, Okta, Google Workspace) gives the run: desired users with their target groups, plus
// the problems found in the input, each with its location. Each kind is a
// subpackage whose configuration type implements Config (it validates
// itself, names its files and secrets, and opens the source from one
// Options value); the registry of kinds is package source/all. Merge
// combines several sources with a stated precedence.
//
// Extra attributes and expressions: every source exposes more of its
// records than the user fields (extra directory attributes, the other
// columns of a CSV file, the other keys of a YAML record). It runs the
// compiled expressions it is opened with (Options.Expressions, package
// source/expr) over each record, handed to Program.Run as an expr.Record:
// the raw user fields, the extra attributes by name and the directory
// group names. Run applies, in this
// order, the run's scope groups and the filter (a record either leaves out
// goes to Result.Filtered, not to Users), set (the computed fields replace
// the record's before the source's usual checks, so that a bad computed
// value is a bad record, reported under "set.<field>" and skipped), then
// the groups expression, whose groups the source adds to its mapping
// rules' targets. An expression failing on one record makes that record a
// Problem whose Field is the expression's key ("filter", "groups",
// "set.country"); the other records go on. Options.Explain makes a source
// say how it built one user (Result.Traces).
package source

import (
	"context"
	"fmt"
	"strings"

	"github.com/orgsync/orgsync/internal/util/textcut"
	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/source/diag"
	"github.com/orgsync/orgsync/target/umwire"
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
	// Users are the desired users, each once (by reconcile.User.Key): a
	// source merges or skips the records of a user it has already.
	Users    reconcile.Users
	Problems []Problem
	// Notices are worth a look but lose nothing and do not hold back any
	// change (for example a group that no mapping rule maps).
	Notices []Problem
	// FoundGroups are the groups of exact mapping rules (as
	// mapping.Mapper.ExactGroups writes them) that this source has: in its
	// directory, or named by one of its records.
	FoundGroups []string
	// Defaulted says, for each user (same index as Users), which of its
	// values came from the source's defaults (defaultType, defaultCountry)
	// rather than from its record; nil or short means none.
	Defaulted []Defaulted
	// MissingGroups are the groups of exact mapping rules that this source
	// looked for and did not find, when it leaves that check to its caller
	// (CheckGroups); a source that checks by itself fails Read instead.
	MissingGroups []MissingGroup
	// Filtered are the users (identity only) whose records the source's
	// filter expression left out of the run: the run leaves them alone,
	// in the organization or not.
	Filtered []reconcile.User
	// Traces say how the source built the users it was asked to explain
	// (Options.Explain).
	Traces []diag.Trace
}

// DefaultedAt returns which values of Users[i] are only defaults.
func (r *Result) DefaultedAt(i int) Defaulted {
	if i < len(r.Defaulted) {
		return r.Defaulted[i]
	}
	return 0
}

// Defaulted is a set of user fields whose values a source took from its
// defaults, not from the record: such a value gives way to one that
// another record (of the same or a later source) gives, and never
// conflicts with it.
type Defaulted uint8

// The fields a source can default.
const (
	DefaultedType Defaulted = 1 << iota
	DefaultedCountry
)

// Problem is one bad record or value, skipped, with where it is and why.
// Its text (String) cuts the record's name and the reason, which may
// quote a value from the directory, to textcut.Message bytes each.
type Problem struct {
	Source string // source name
	File   string // file or server the record came from
	Line   int    // line or row number (1-based), 0 when not applicable
	Record string // record identity when known (email, DN)
	Field  string // field or column
	Reason string // what is wrong and what to do
}

func (p Problem) String() string {
	p.Record, p.Reason = textcut.Cut(p.Record, textcut.Message), textcut.Cut(p.Reason, textcut.Message)
	loc := p.File
	if loc == "" {
		loc = p.Source
	}
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

// Defaults are what a file source (CSV, YAML) uses for a record that
// leaves a field empty. They are part of each file source's configuration.
type Defaults struct {
	// Type is the identity type of users whose record has no type:
	// federatedID (the default), enterpriseID or vendorID.
	Type string `yaml:"defaultType,omitempty"`
	// Country is the ISO 3166-1 alpha-2 country of users whose record has none.
	Country string `yaml:"defaultCountry,omitempty"`
	// Domain is the domain of users whose record has neither a domain nor
	// an email (Federated IDs known by username only).
	Domain string `yaml:"defaultDomain,omitempty"`
}

// Templates are the user fields of a directory source (LDAP, Entra ID,
// Okta) as attribute templates: "{mail}", "{sAMAccountName}@example.com";
// "{{" and "}}" are literal braces. An empty template takes the source's
// default; a template whose attribute a record lacks gives no value.
type Templates struct {
	Email     string `yaml:"email,omitempty"`
	Username  string `yaml:"username,omitempty"`
	Domain    string `yaml:"domain,omitempty"`
	FirstName string `yaml:"firstname,omitempty"`
	LastName  string `yaml:"lastname,omitempty"`
	Country   string `yaml:"country,omitempty"`
	Type      string `yaml:"type,omitempty"`
}

// DefaultType is the identity type of a record without one when
// Defaults.Type is not set.
const DefaultType = reconcile.FederatedID

// Validate reports every problem of the defaults, named by their YAML keys.
func (d *Defaults) Validate() []diag.FieldError {
	var errs []diag.FieldError
	if d.Type != "" {
		if _, ok := reconcile.ParseIdentityType(d.Type); !ok {
			errs = append(errs, diag.FieldError{Field: "defaultType", Reason: fmt.Sprintf("%q is not an identity type: use federatedID, enterpriseID or vendorID", d.Type)})
		}
	}
	if d.Country != "" && !umwire.IsCountryCode(strings.ToUpper(strings.TrimSpace(d.Country))) {
		errs = append(errs, diag.FieldError{Field: "defaultCountry", Reason: fmt.Sprintf("%q is not an ISO 3166-1 alpha-2 country code (e.g. US, DE)", d.Country)})
	}
	if strings.ContainsAny(d.Domain, "@ \t") {
		errs = append(errs, diag.FieldError{Field: "defaultDomain", Reason: fmt.Sprintf("%q is not a domain (e.g. example.com)", d.Domain)})
	}
	return errs
}
