package ldap

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	ldap3 "github.com/go-ldap/ldap/v3"
)

// rangedMember is how Active Directory names a part of the member values
// of a group that has more than its MaxValRange (1,500 by default):
// member;range=0-1499, then member;range=1500-2999, ..., the last part
// member;range=3000-*.
const rangedMember = "member;range="

// memberValues returns the member and uniqueMember values of a group
// entry and, when the server returned only a part of the member values,
// the index the next part starts at (-1 when there is none).
func memberValues(e *ldap3.Entry) (values []string, next int, err error) {
	next = -1
	for _, a := range e.Attributes {
		name := strings.ToLower(a.Name)
		switch {
		case name == "member" || name == "uniquemember":
			values = append(values, a.Values...)
		case strings.HasPrefix(name, rangedMember):
			values = append(values, a.Values...)
			if next, err = rangeNext(name[len(rangedMember):]); err != nil {
				return nil, -1, fmt.Errorf("%s: attribute %s: %w", e.DN, a.Name, err)
			}
		}
	}
	return values, next, nil
}

// rangeNext returns where the part after low-high starts: high+1, or -1
// for the last part (low-*).
func rangeNext(r string) (int, error) {
	lowText, highText, ok := strings.Cut(r, "-")
	low, lowErr := strconv.Atoi(lowText)
	if !ok || lowErr != nil || low < 0 {
		return -1, fmt.Errorf("not a value range (low-high or low-*)")
	}
	if highText == "*" {
		return -1, nil
	}
	high, err := strconv.Atoi(highText)
	if err != nil || high < low || high == int(^uint(0)>>1) {
		return -1, fmt.Errorf("not a value range (low-high or low-*)")
	}
	return high + 1, nil
}

// readRanges reads the rest of the member values of the groups whose entry
// held only a part of them (pending: group DN -> where the next part
// starts), one base search a part.
func (s *Source) readRanges(ctx context.Context, sr *searcher, groups map[string]*group, pending map[string]int) error {
	for _, dn := range slices.Sorted(maps.Keys(pending)) {
		g := groups[dn]
		for next := pending[dn]; next >= 0; {
			q := query{base: g.rawDN, scope: ldap3.ScopeBaseObject, filter: "(objectClass=*)", attrs: []string{fmt.Sprintf("%s%d-*", rangedMember, next)}}
			following, partErr := -1, error(nil)
			err := sr.search(ctx, q, func(e *ldap3.Entry) {
				values, n, err := memberValues(e)
				following, partErr = n, err
				for _, v := range values {
					g.members = append(g.members, normDN(stripUID(v)))
				}
			})
			if err == nil {
				err = partErr
			}
			if err == nil && following >= 0 && following <= next {
				err = fmt.Errorf("the server answered the range from %d with one ending before it", next)
			}
			if err != nil {
				return fmt.Errorf("members of %s: %w", g.rawDN, err)
			}
			next = following
		}
	}
	return nil
}
