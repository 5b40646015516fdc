package adtest

import (
	"strconv"
	"strings"

	ber "github.com/go-asn1-ber/asn1-ber"
	ldap3 "github.com/go-ldap/ldap/v3"
)

// Matching rules of Active Directory.
const (
	ruleBitAnd  = "1.2.840.113556.1.4.803"
	ruleBitOr   = "1.2.840.113556.1.4.804"
	ruleInChain = "1.2.840.113556.1.4.1941"
)

// matches evaluates a compiled filter against e.
func (s *Server) matches(f *ber.Packet, e Entry) bool {
	switch f.Tag {
	case ldap3.FilterAnd:
		for _, c := range f.Children {
			if !s.matches(c, e) {
				return false
			}
		}
		return true
	case ldap3.FilterOr:
		for _, c := range f.Children {
			if s.matches(c, e) {
				return true
			}
		}
		return false
	case ldap3.FilterNot:
		return !s.matches(f.Children[0], e)
	case ldap3.FilterPresent:
		return len(values(e, f.Data.String())) > 0
	case ldap3.FilterEqualityMatch, ldap3.FilterApproxMatch:
		return containsFold(values(e, f.Children[0].Data.String()), f.Children[1].Data.String())
	case ldap3.FilterSubstrings:
		return substringMatch(f, e)
	case ldap3.FilterExtensibleMatch:
		return s.extensibleMatch(f, e)
	}
	return false
}

func substringMatch(f *ber.Packet, e Entry) bool {
	for _, v := range values(e, f.Children[0].Data.String()) {
		if substringOne(strings.ToLower(v), f.Children[1].Children) {
			return true
		}
	}
	return false
}

// substringOne matches one value against initial, any and final parts.
func substringOne(v string, parts []*ber.Packet) bool {
	for _, p := range parts {
		sub := strings.ToLower(p.Data.String())
		switch p.Tag {
		case 0: // initial
			if !strings.HasPrefix(v, sub) {
				return false
			}
			v = v[len(sub):]
		case 1: // any
			i := strings.Index(v, sub)
			if i < 0 {
				return false
			}
			v = v[i+len(sub):]
		case 2: // final
			if !strings.HasSuffix(v, sub) {
				return false
			}
		}
	}
	return true
}

// extensibleMatch evaluates attr:rule:=value for AD's matching rules.
func (s *Server) extensibleMatch(f *ber.Packet, e Entry) bool {
	var rule, attr, value string
	for _, c := range f.Children {
		switch c.Tag {
		case 1:
			rule = c.Data.String()
		case 2:
			attr = c.Data.String()
		case 3:
			value = c.Data.String()
		}
	}
	switch rule {
	case ruleBitAnd, ruleBitOr:
		want, err := strconv.ParseUint(value, 10, 32)
		if err != nil {
			return false
		}
		for _, v := range values(e, attr) {
			got, err := strconv.ParseUint(v, 10, 32)
			if err == nil && (rule == ruleBitAnd && got&want == want || rule == ruleBitOr && got&want != 0) {
				return true
			}
		}
	case ruleInChain:
		return s.inChain(e, attr, normDN(value))
	}
	return false
}

// inChain reports whether target can be reached from e by following the
// DN values of attr (memberOf, member, …) any number of times. Each entry
// is visited once, so cycles end.
func (s *Server) inChain(e Entry, attr, target string) bool {
	visited := map[string]bool{}
	queue := values(e, attr)
	for len(queue) > 0 {
		dn := normDN(queue[0])
		queue = queue[1:]
		if dn == target {
			return true
		}
		if visited[dn] {
			continue
		}
		visited[dn] = true
		if next, ok := s.entry(dn); ok {
			queue = append(queue, values(next, attr)...)
		}
	}
	return false
}

func (s *Server) entry(norm string) (Entry, bool) {
	for _, e := range s.opt.Entries {
		if normDN(e.DN) == norm {
			return e, true
		}
	}
	return Entry{}, false
}
