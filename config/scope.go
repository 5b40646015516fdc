package config

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
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

// ReadUsersFile reads a file of users to act on: one email or username a
// line, or a CSV file whose header has an email, username or user column
// (as the report of policy.reportFile writes); blank lines and lines
// starting with # are skipped. It returns the names in lower case. A file
// that names nobody is an error: it would make a run that does nothing
// look like a success.
func ReadUsersFile(path string) (map[string]bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read the users file: %w", err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comment, r.FieldsPerRecord, r.TrimLeadingSpace = '#', -1, true
	users := map[string]bool{}
	var cols []int // the identity columns; nil: the first field of every line
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
		addUsers(users, row, cols)
	}
	if len(users) == 0 {
		return nil, fmt.Errorf("%s names no user: list one email or username a line", path)
	}
	return users, nil
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

// addUsers adds the identities of one row: the values of cols, or the
// first field when cols is nil.
func addUsers(users map[string]bool, row []string, cols []int) {
	if cols == nil {
		cols = []int{0}
	}
	for _, c := range cols {
		if c < len(row) {
			if name := strings.ToLower(strings.TrimSpace(row[c])); name != "" {
				users[name] = true
			}
		}
	}
}
