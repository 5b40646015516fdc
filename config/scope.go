package config

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net/mail"
	"os"
	"strings"
	"unicode"

	"github.com/orgsync/orgsync/internal/util/csvsafe"
	"github.com/orgsync/orgsync/source"
)

// Scope limits every run to part of the users (the command line can set
// the same for one run). A user outside the scope, in a source or in the
// organization, is left alone: never created, changed or removed, and
// never treated as unmatched.
type Scope struct {
	// ExcludeUnmappedUsers leaves out the source users that map to no
	// managed group (user-sync's --exclude-unmapped-users); organization
	// users in no source are still unmatched as usual.
	ExcludeUnmappedUsers bool `yaml:"excludeUnmappedUsers"`
	// Groups, when set, limits the run to the members of these directory
	// groups (by name, letter case ignored); every organization user in no
	// source is left alone too (user-sync's --users group).
	Groups []string `yaml:"groups"`
	// UsersFile, when set, limits the run to the users it lists (see
	// ReadUsersFile): those in a source are synced, those in none are
	// unmatched (policy.unmatchedUsers applies to them).
	UsersFile string `yaml:"usersFile"`
}

// validate checks the scope's groups and that its users file is readable.
func (s *Scope) validate(v *validation) {
	for i, g := range s.Groups {
		if strings.TrimSpace(g) == "" {
			v.errorf(index("scope.groups", i), "empty group name")
		}
	}
	if s.UsersFile != "" {
		if _, err := ReadUsersFile(s.UsersFile); err != nil {
			v.errorf("scope.usersFile", "%v", err)
		}
	}
}

// UsersFile is a file of users to act on, as ReadUsersFile read it.
type UsersFile struct {
	// Users are the emails and usernames it names, in lower case.
	Users map[string]bool
	// Problems are its bad lines, skipped: each with its line number and
	// what to do.
	Problems []source.Problem
}

// ReadUsersFile reads a file of users to act on: one email or username a
// line, or a CSV file whose header has an email, username or user column
// (as the report of policy.reportFile writes); blank lines and lines
// starting with # are skipped. A line that names no user plainly (two
// values on a line without a header, a value with a space, a malformed
// email, a row with none of the identity columns) is a bad line: it is
// reported and skipped. A file that cannot be read or parsed as CSV, or
// that names nobody, is an error: it would make a run that does nothing
// look like a success.
func ReadUsersFile(path string) (*UsersFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read the users file: %w", err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comment, r.FieldsPerRecord, r.TrimLeadingSpace = '#', -1, true
	uf := &UsersFile{Users: map[string]bool{}}
	var cols []int // the identity columns; nil: one user a line
	for first := true; ; first = false {
		row, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if first {
			if cols = identityColumns(row); cols != nil {
				continue
			}
		}
		line, _ := r.FieldPos(0)
		if reason := uf.add(row, cols); reason != "" {
			uf.Problems = append(uf.Problems, source.Problem{Source: "scope.usersFile", File: path, Line: line,
				Reason: reason + ": this line is skipped, and the user it meant left alone"})
		}
	}
	if len(uf.Users) == 0 {
		return nil, fmt.Errorf("%s names no user: list one email or username a line", path)
	}
	return uf, nil
}

// identityColumns returns the positions of the email, username and user
// columns of a header row, nil when it has none.
func identityColumns(head []string) []int {
	var cols []int
	for i, h := range head {
		switch strings.ToLower(strings.TrimSpace(h)) {
		case "email", "username", "user":
			cols = append(cols, i)
		}
	}
	return cols
}

// add adds the users of one row: the values of cols, or, when cols is
// nil, its only value. It returns why the row is bad, "" when it is not.
func (uf *UsersFile) add(row []string, cols []int) string {
	var names []string
	if cols == nil {
		for _, v := range row {
			if v = strings.TrimSpace(csvsafe.Value(v)); v != "" {
				names = append(names, v)
			}
		}
		if len(names) > 1 {
			return "more than one value on the line: list one email or username a line, or start the file with a header row naming an email, username or user column"
		}
	}
	for _, c := range cols {
		if c < len(row) && strings.TrimSpace(row[c]) != "" {
			names = append(names, strings.TrimSpace(csvsafe.Value(row[c])))
		}
	}
	if len(names) == 0 {
		return "no email, username or user value on the line"
	}
	for _, n := range names {
		if reason := badName(n); reason != "" {
			return reason
		}
	}
	for _, n := range names {
		uf.Users[strings.ToLower(n)] = true
	}
	return ""
}

// badName says why name is neither an email nor a username, "" when it
// may be one.
func badName(name string) string {
	if i := strings.IndexFunc(name, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }); i >= 0 {
		return fmt.Sprintf("%q is not an email or username: it has a space or control character", name)
	}
	if strings.Contains(name, "@") {
		if a, err := mail.ParseAddress(name); err != nil || a.Address != name {
			return fmt.Sprintf("%q is not a valid email address", name)
		}
	}
	return ""
}
