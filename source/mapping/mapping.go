// Package mapping turns directory groups (LDAP groups, the group names of a
// CSV or YAML file) into target groups (user groups, product profiles and
// admin groups of the service) by the mapping rules of the configuration.
//
// A rule names a directory group exactly (by name, RDN or DN, letter case
// ignored) or by an anchored regular expression whose captures may be used
// in the target names ($1, ${name}). A directory group that no rule matches
// maps to nothing: it is not managed.
package mapping

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/orgsync/orgsync/internal/util/textcut"
	"github.com/orgsync/orgsync/source/diag"
	"github.com/orgsync/orgsync/target/umwire"
)

// Rule maps directory groups to target groups (user groups, product
// profiles, admin groups). Exactly one of Directory and Pattern is set.
type Rule struct {
	// Directory is an exact directory group: its name (e.g. the cn), its
	// first RDN ("cn=eng") or its DN; letter case is ignored.
	Directory string `yaml:"directory,omitempty"`
	// Pattern is a regular expression, anchored (it must match all of the
	// group's name, its first RDN or its DN) and case-insensitive.
	Pattern string `yaml:"pattern,omitempty"`
	// Targets are target group names; with Pattern they may use capture
	// substitution as in regexp.Expand: $1, ${1}, ${name}.
	Targets []string `yaml:"targets"`
}

// Mapper applies a set of rules. It is safe for concurrent use: it is
// never changed after New.
type Mapper struct {
	exact    map[string][]string // normalized name, RDN or DN -> targets
	exactDir []string            // directory groups of exact rules, as written, deduplicated
	patterns []patternRule
	literal  []string // targets without substitution, deduplicated
	rules    int
	each     []compiled // every valid rule, in order, for Explain
}

// compiled is one rule as Explain tries it.
type compiled struct {
	index   int
	exact   string // normalized directory group of an exact rule
	pattern patternRule
}

type patternRule struct {
	re      *regexp.Regexp
	targets []string
}

// New checks and compiles the rules. It reports every problem at once as a
// diag.FieldErrors; each Field is the rule's path relative to the rule
// list, e.g. "[2].pattern".
func New(rules []Rule) (*Mapper, error) {
	m := &Mapper{exact: map[string][]string{}, rules: len(rules)}
	var errs diag.FieldErrors
	for i, r := range rules {
		errs = append(errs, m.add(i, r)...)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return m, nil
}

// add checks rule i and adds it to m when it is valid.
func (m *Mapper) add(i int, r Rule) []diag.FieldError {
	at := fmt.Sprintf("[%d]", i)
	dir, pat := strings.TrimSpace(r.Directory), strings.TrimSpace(r.Pattern)
	var errs []diag.FieldError
	var re *regexp.Regexp
	switch {
	case dir != "" && pat != "":
		errs = append(errs, diag.FieldError{Field: at, Reason: "set directory or pattern, not both"})
	case dir == "" && pat == "":
		errs = append(errs, diag.FieldError{Field: at, Reason: "set directory (a group name or DN) or pattern (a regular expression)"})
	case pat != "":
		var err error
		if re, err = regexp.Compile(`(?i)^(?:` + pat + `)$`); err != nil {
			errs = append(errs, diag.FieldError{Field: at + ".pattern", Reason: "not a valid regular expression: " + err.Error()})
		}
	}
	if len(r.Targets) == 0 {
		errs = append(errs, diag.FieldError{Field: at + ".targets", Reason: "at least one target group is required"})
	}
	for j, t := range r.Targets {
		if reason := checkTarget(t, pat != "", re); reason != "" {
			errs = append(errs, diag.FieldError{Field: fmt.Sprintf("%s.targets[%d]", at, j), Reason: reason})
		}
	}
	if len(errs) > 0 {
		return errs
	}
	targets := trimAll(r.Targets)
	m.literal = appendLiterals(m.literal, targets)
	if re != nil {
		m.patterns = append(m.patterns, patternRule{re: re, targets: targets})
		m.each = append(m.each, compiled{index: i, pattern: patternRule{re: re, targets: targets}})
		return nil
	}
	key := normalize(dir)
	m.each = append(m.each, compiled{index: i, exact: key, pattern: patternRule{targets: targets}})
	if _, seen := m.exact[key]; !seen {
		m.exactDir = append(m.exactDir, dir)
	}
	m.exact[key] = dedupe(m.exact[key], targets...)
	return nil
}

// checkTarget returns what is wrong with one target name, or "".
// withPattern says whether the rule is a pattern rule; re is its compiled
// expression (nil when it did not compile).
func checkTarget(t string, withPattern bool, re *regexp.Regexp) string {
	if strings.TrimSpace(t) == "" {
		return "empty target group name"
	}
	refs := templateRefs(t)
	if len(refs) == 0 {
		if err := umwire.CheckGroupName(t); err != nil {
			return fmt.Sprintf("%q: %v", textcut.Cut(t, 64), err)
		}
		return ""
	}
	if !withPattern {
		return fmt.Sprintf("%q uses $ substitution, which only pattern rules have", t)
	}
	if re == nil {
		return ""
	}
	for _, name := range refs {
		if reason := checkRef(name, re); reason != "" {
			return fmt.Sprintf("%q: %s", t, reason)
		}
	}
	return ""
}

// checkRef checks one capture reference of a target template against re.
func checkRef(name string, re *regexp.Regexp) string {
	if n, ok := atoi(name); ok {
		if n > re.NumSubexp() {
			return fmt.Sprintf("refers to capture $%d but the pattern has %d capture group(s)", n, re.NumSubexp())
		}
		return ""
	}
	if re.SubexpIndex(name) >= 0 {
		return ""
	}
	if lead := leadingDigits(name); lead != "" {
		return fmt.Sprintf("$%s refers to a capture group named %q; write ${%s}%s", name, name, lead, name[len(lead):])
	}
	return fmt.Sprintf("refers to capture group %q, which the pattern does not define", name)
}

// templateRefs returns the capture names a regexp.Expand template refers
// to ("1", "name"), in order. "$$" is a literal dollar.
func templateRefs(t string) []string {
	var refs []string
	for i := 0; i < len(t); i++ {
		if t[i] != '$' || i+1 >= len(t) {
			continue
		}
		if t[i+1] == '$' {
			i++
			continue
		}
		if t[i+1] == '{' {
			if end := strings.IndexByte(t[i+2:], '}'); end > 0 {
				refs = append(refs, t[i+2:i+2+end])
				i += 2 + end
			}
			continue
		}
		j := i + 1
		for j < len(t) && isNameByte(t[j]) {
			j++
		}
		if j > i+1 {
			refs = append(refs, t[i+1:j])
			i = j - 1
		}
	}
	return refs
}

func isNameByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func leadingDigits(s string) string {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i]
}

// atoi parses a capture number as regexp.Expand does (decimal digits only).
func atoi(s string) (int, bool) {
	if s == "" || leadingDigits(s) != s || len(s) > 8 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

// MapGroup returns the target groups for one directory group known by its
// name and/or its DN (either may be ""). Exact rules match the name, the
// DN's first RDN ("cn=eng-users") or the whole DN; a pattern is tried
// against the name, the first RDN and the whole DN, and the first that
// matches gives the captures. The result is deduplicated case-insensitively
// (first spelling kept) and is nil when no rule matches.
func (m *Mapper) MapGroup(name, dn string) []string {
	return m.mapCandidates(candidatesOf(name, dn))
}

// MapExact returns the targets of the exact rules that name g (a group's
// other name, such as an alias address): patterns are not applied.
func (m *Mapper) MapExact(g string) []string {
	if m.Empty() {
		return nil
	}
	return dedupe(nil, m.exact[normalize(g)]...)
}

// mapCandidates maps a group known by the candidate strings (see
// candidatesOf and fileCandidates).
func (m *Mapper) mapCandidates(candidates [3]string) []string {
	var out []string
	for _, c := range candidates {
		if c != "" {
			out = dedupe(out, m.exact[normalize(c)]...)
		}
	}
	for _, p := range m.patterns {
		out = p.apply(out, candidates)
	}
	return out
}

// candidatesOf returns what rules are matched against, in order: the name,
// the DN's first RDN and the DN ("" where unknown).
func candidatesOf(name, dn string) [3]string {
	candidates := [3]string{strings.TrimSpace(name), "", ""}
	if dn = strings.TrimSpace(dn); dn != "" {
		candidates[1], candidates[2] = firstRDN(dn), dn
	}
	return candidates
}

// fileCandidates returns what rules are matched against for a group known
// by one string, as a CSV or YAML file writes it: the string itself, and
// when it is an RDN or DN ("cn=eng,ou=groups"), its first RDN's value (the
// name, "eng") and its first RDN ("cn=eng").
func fileCandidates(g string) [3]string {
	g = strings.TrimSpace(g)
	rdn := firstRDN(g)
	attr, value, ok := strings.Cut(rdn, "=")
	if value = strings.TrimSpace(value); !ok || value == "" || !isAttrType(strings.TrimSpace(attr)) {
		return [3]string{g, "", ""}
	}
	return [3]string{g, value, rdn}
}

// isAttrType reports whether s looks like an LDAP attribute type (cn, ou,
// 2.5.4.3), so that "Team A=B" is a name, not an RDN.
func isAttrType(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// apply adds the targets of p for the first candidate it matches.
func (p patternRule) apply(out []string, candidates [3]string) []string {
	for _, c := range candidates {
		if c == "" {
			continue
		}
		match := p.re.FindStringSubmatchIndex(c)
		if match == nil {
			continue
		}
		for _, t := range p.targets {
			if name := strings.TrimSpace(string(p.re.ExpandString(nil, t, c, match))); name != "" {
				out = dedupe(out, name)
			}
		}
		return out
	}
	return out
}

// MapName is MapGroup for a group known by one string, as a CSV or YAML
// file writes it: rules are tried on the string, then, when it is an RDN or
// DN, on its first RDN's value (its name) and its first RDN, so that
// "cn=eng,ou=groups" matches a rule for eng.
func (m *Mapper) MapName(g string) []string { return m.mapCandidates(fileCandidates(g)) }

// Hit is one rule that maps a directory group, for explaining a mapping.
type Hit struct {
	Rule    int      // the rule's index in the rule list
	Targets []string // what it maps the group to
}

// Explain returns, for a group known by one string as MapName takes it,
// each rule that maps it, in rule order. MapName(g) is the union of the
// hits' targets.
func (m *Mapper) Explain(g string) []Hit {
	if m.Empty() {
		return nil
	}
	candidates := fileCandidates(g)
	var hits []Hit
	for _, c := range m.each {
		var targets []string
		if c.pattern.re != nil {
			targets = c.pattern.apply(nil, candidates)
		} else if slices.ContainsFunc(candidates[:], func(s string) bool { return s != "" && normalize(s) == c.exact }) {
			targets = dedupe(nil, c.pattern.targets...)
		}
		if len(targets) > 0 {
			hits = append(hits, Hit{Rule: c.index, Targets: targets})
		}
	}
	return hits
}

// ExactGroups returns the directory groups named by exact rules, as
// written: a source must check that each of them exists, so that a renamed
// group fails the run instead of emptying its target groups.
func (m *Mapper) ExactGroups() []string { return append([]string(nil), m.exactDir...) }

// ExactGroupsNamed returns the groups of exact rules (as ExactGroups writes
// them) that one of names is, compared as MapName compares: the exactly
// mapped groups that a CSV or YAML file has.
func (m *Mapper) ExactGroupsNamed(names []string) []string {
	if m.Empty() {
		return nil
	}
	keys := make(map[string]bool, len(names))
	for _, n := range names {
		for _, c := range fileCandidates(n) {
			if c != "" {
				keys[normalize(c)] = true
			}
		}
	}
	var out []string
	for _, g := range m.exactDir {
		if keys[normalize(g)] {
			out = append(out, g)
		}
	}
	return out
}

// Targets returns the target group names written literally in the rules
// (without $ substitution), deduplicated case-insensitively: they are part
// of the managed scope even when no user is mapped to them.
func (m *Mapper) Targets() []string { return append([]string(nil), m.literal...) }

// HasPatterns reports whether some rule is a pattern: which directory
// groups it maps is known only by trying it on every group.
func (m *Mapper) HasPatterns() bool { return m != nil && len(m.patterns) > 0 }

// Empty reports whether there are no rules (every group maps to nothing).
func (m *Mapper) Empty() bool { return m == nil || m.rules == 0 }

// normalize returns the lookup key of a group name, RDN or DN: lower case,
// without spaces around the separators of a DN.
func normalize(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if !strings.ContainsRune(s, '=') {
		return s
	}
	parts := splitDN(s)
	for i, p := range parts {
		if k, v, ok := strings.Cut(p, "="); ok {
			parts[i] = strings.TrimSpace(k) + "=" + strings.TrimSpace(v)
		}
	}
	return strings.Join(parts, ",")
}

// firstRDN returns the first RDN of a DN ("cn=eng" of "cn=eng,dc=example").
func firstRDN(dn string) string { return strings.TrimSpace(splitDN(dn)[0]) }

// splitDN splits a DN at the commas that are not escaped with a backslash.
func splitDN(dn string) []string {
	var parts []string
	start := 0
	for i := 0; i < len(dn); i++ {
		switch dn[i] {
		case '\\':
			i++
		case ',':
			parts = append(parts, dn[start:i])
			start = i + 1
		}
	}
	return append(parts, dn[start:])
}

// dedupe appends the names not yet in out (case-insensitively) to out.
func dedupe(out []string, names ...string) []string {
next:
	for _, n := range names {
		for _, o := range out {
			if strings.EqualFold(o, n) {
				continue next
			}
		}
		out = append(out, n)
	}
	return out
}

func trimAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strings.TrimSpace(s)
	}
	return out
}

// appendLiterals adds the targets that use no substitution to lit.
func appendLiterals(lit, targets []string) []string {
	for _, t := range targets {
		if !strings.Contains(t, "$") {
			lit = dedupe(lit, t)
		}
	}
	return lit
}
