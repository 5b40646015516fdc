package googlefake

import (
	"errors"
	"strings"
)

// mask is a parsed fields parameter (a partial response's selection):
// the members selected, each with the selection inside it (nil: all of
// it). "nextPageToken,users(id,name/givenName)" selects nextPageToken
// whole and, in each user, id whole and name's givenName.
type mask map[string]mask

// parseMask parses a fields parameter: selections separated by commas,
// each a path of names separated by "/", optionally followed by a
// sub-selection in parentheses.
func parseMask(s string) (mask, error) {
	m := mask{}
	rest, err := m.parse(s)
	if err != nil || rest != "" {
		return nil, errors.New(s)
	}
	return m, nil
}

// parse reads a list of selections into m until a ")" or the end, and
// returns what follows.
func (m mask) parse(s string) (string, error) {
	for {
		end := strings.IndexAny(s, ",()")
		if end < 0 {
			end = len(s)
		}
		sub := end < len(s) && s[end] == '('
		leaf, err := m.add(strings.Split(s[:end], "/"), sub)
		if err != nil {
			return "", err
		}
		s = s[end:]
		if sub {
			if s, err = leaf.parse(s[1:]); err != nil || !strings.HasPrefix(s, ")") {
				return "", errors.New("unbalanced parentheses")
			}
			s = s[1:]
		}
		if !strings.HasPrefix(s, ",") {
			return s, nil
		}
		s = s[1:]
	}
}

// add adds the selection of path to m and returns the mask of its
// last name's sub-selection (when sub; a whole member already selected
// stays whole, with a mask that nothing reads).
func (m mask) add(path []string, sub bool) (mask, error) {
	leaf := m
	for i, name := range path {
		if name == "" {
			return nil, errors.New("empty name")
		}
		if i == len(path)-1 && !sub {
			leaf[name] = nil
			return nil, nil
		}
		next, ok := leaf[name]
		switch {
		case !ok:
			next = mask{}
			leaf[name] = next
		case next == nil:
			next = mask{}
		}
		leaf = next
	}
	return leaf, nil
}

// apply returns the part of v that m selects.
func (m mask) apply(v any) any {
	if m == nil {
		return v
	}
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(m))
		for k, sub := range m {
			if val, ok := x[k]; ok {
				out[k] = sub.apply(val)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = m.apply(e)
		}
		return out
	}
	return v
}

// schema is what a resource's members are: each member's own schema, nil
// for a value or an object whose members are not checked.
type schema map[string]schema

// check returns the first selection of m that s does not have, "" when
// every one is known.
func (m mask) check(s schema) string {
	for k, sub := range m {
		inner, ok := s[k]
		if !ok {
			return k
		}
		if inner == nil {
			continue
		}
		if bad := sub.check(inner); bad != "" {
			return k + "/" + bad
		}
	}
	return ""
}

// fieldsOf returns the schema of each member named.
func fieldsOf(names string) schema {
	s := schema{}
	for _, n := range strings.Fields(names) {
		s[n] = nil
	}
	return s
}

// The Directory API's resources, as far as the fake checks selections.
var (
	userSchema = func() schema {
		s := fieldsOf(`kind id etag primaryEmail isAdmin isDelegatedAdmin lastLoginTime creationTime deletionTime
			agreedToTerms suspended suspensionReason archived changePasswordAtNextLogin ipWhitelisted emails addresses
			organizations phones languages externalIds relations locations customSchemas aliases nonEditableAliases
			customerId orgUnitPath isMailboxSetup isEnrolledIn2Sv isEnforcedIn2Sv includeInGlobalAddressList
			thumbnailPhotoUrl thumbnailPhotoEtag recoveryEmail recoveryPhone gender keywords websites ims posixAccounts
			sshPublicKeys notes`)
		s["name"] = fieldsOf("givenName familyName fullName displayName")
		return s
	}()
	groupSchema  = fieldsOf("kind id etag email name directMembersCount description adminCreated aliases nonEditableAliases")
	memberSchema = fieldsOf("kind etag id email role type status delivery_settings")
)

// listSchema is the schema of a listing of items of s under member.
func listSchema(member string, s schema) schema {
	l := fieldsOf("kind etag nextPageToken trigger_event")
	l[member] = s
	return l
}
