// Package userrec turns the raw user records of a file source (CSV, YAML)
// into desired users: it applies the defaults, checks every field, maps the
// directory groups to target groups, merges duplicates and collects every
// problem with its line, so that each file format only has to read records.
package userrec

import (
	"fmt"
	"github.com/orgsync/orgsync/target/umwire"
	"maps"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/orgsync/orgsync/internal/util/suggest"
	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/diag"
	"github.com/orgsync/orgsync/source/expr"
	"github.com/orgsync/orgsync/source/internal/textenc"
	"github.com/orgsync/orgsync/source/mapping"
)

// Field names one user field of a record: the fields expressions see
// (source/expr), then the groups.
type Field int

// The fields of a record.
const (
	FirstName = Field(expr.FirstName)
	LastName  = Field(expr.LastName)
	Email     = Field(expr.Email)
	Country   = Field(expr.Country)
	Type      = Field(expr.Type)
	Username  = Field(expr.Username)
	Domain    = Field(expr.Domain)
	Groups    = Field(expr.NumFields)
	NumFields = Groups + 1 // the number of fields
)

// DefaultNames returns the default name of every field: the CSV column and
// YAML key ("firstname", "lastname", "email", ...).
func DefaultNames() [NumFields]string {
	var names [NumFields]string
	for f := range expr.NumFields {
		names[f] = f.Name()
	}
	names[Groups] = "groups"
	return names
}

// Record is one user record as read from a file.
type Record struct {
	Line   int               // line where the record starts (1-based)
	Values [NumFields]string // raw values; the Builder uses Groups, not Values[Groups]
	Lines  [NumFields]int    // line of each value when it differs from Line (0: Line)
	Groups []string          // directory group names
	Extra  []Issue           // problems the reader found in the record (unknown keys, ...)
	// Attributes are the record's other values (columns, keys) by name,
	// for the expressions; a reader may reuse the map between records.
	Attributes map[string]string
}

// Issue is a problem a reader found in a record, at a line.
type Issue struct {
	Line          int
	Field, Reason string
}

// Builder collects the users of one file.
type Builder struct {
	source, file string
	names        [NumFields]string
	typ          reconcile.IdentityType
	country      string
	domain       string
	mapper       *mapping.Mapper
	mapped       map[string][]string // directory group -> target groups
	unmapped     []source.Problem    // a notice for each group no rule maps
	index        *reconcile.Index    // users by key
	lines        []int               // line of each user
	users        reconcile.Users
	defaulted    []source.Defaulted // which values of each user are defaults
	problems     []source.Problem
	records      int
	prog         *expr.Program    // the source's expressions, nil for none
	xr           expr.Record      // reused for each record
	explain      string           // the user to trace (source.Options.Explain)
	filtered     []reconcile.User // users the filter or the scope left out
	leftByFilter int
	traces       []diag.Trace
}

// New returns a Builder for the file of the named source, which maps
// groups, runs expressions and traces the explained user as o says. names
// are the names of the fields in this file, used in problems. The
// defaults must have passed Validate.
func New(sourceName, file string, names [NumFields]string, d source.Defaults, o source.Options) *Builder {
	typ, ok := reconcile.ParseIdentityType(d.Type)
	if !ok {
		typ = source.DefaultType
	}
	b := &Builder{
		source: sourceName, file: file, names: names, typ: typ,
		country: strings.ToUpper(strings.TrimSpace(d.Country)), domain: strings.TrimSpace(d.Domain),
		mapper: o.Mapper, prog: o.Expressions, explain: o.Explain, mapped: map[string][]string{},
	}
	b.index = b.newIndex(0)
	return b
}

// newIndex is an index of the users by key, with room for n.
func (b *Builder) newIndex(n int) *reconcile.Index {
	return reconcile.NewIndex(n, func(i int) string { return b.users.Key(i) })
}

// Reserve makes room for about n users, to spare growing the lists of a
// big file.
func (b *Builder) Reserve(n int) {
	if n <= b.users.Len() {
		return
	}
	b.users.Grow(n - b.users.Len())
	lines := make([]int, len(b.lines), n)
	copy(lines, b.lines)
	b.lines = lines
	defaulted := make([]source.Defaulted, len(b.defaulted), n)
	copy(defaulted, b.defaulted)
	b.defaulted = defaulted
	if b.index.Len() == 0 {
		b.index = b.newIndex(n)
	}
}

// Skip counts a record that the reader could not turn into a Record and
// reports why.
func (b *Builder) Skip(line int, reason string) {
	b.records++
	b.report(line, "", "", reason)
}

// Report adds a problem that is not about one record (for example a group
// definition of a YAML file).
func (b *Builder) Report(line int, field, reason string) { b.report(line, "", field, reason) }

func (b *Builder) report(line int, record, field, reason string) {
	b.problems = append(b.problems, source.Problem{
		Source: b.source, File: b.file, Line: line, Record: record, Field: field, Reason: reason,
	})
}

// Add checks one record and adds its user, or reports why it is skipped.
func (b *Builder) Add(r *Record) {
	b.records++
	out, ok := b.evaluate(r)
	if !ok {
		return
	}
	if !out.Keep {
		b.leaveOut(r, &out)
		return
	}
	before := len(b.problems)
	if b.explain != "" { // once the record is judged: a duplicate that disagrees is skipped too
		defer func() { b.trace(r, &out, b.problemsSince(before)) }()
	}
	u, d, ok := b.user(r, &out)
	if !ok {
		return
	}
	key := u.Key()
	i, dup := b.index.Find(key)
	if !dup {
		b.index.AddKey(b.users.Len(), key)
		b.users.Add(u)
		b.lines = append(b.lines, r.Line)
		b.defaulted = append(b.defaulted, d)
		return
	}
	have := b.users.At(i)
	conflicts := source.Conflicts(&have, &u, b.defaulted[i], d)
	if len(conflicts) == 0 {
		b.defaulted[i] = source.Fill(&have, &u, b.defaulted[i], d)
		b.users.Set(i, have)
		return
	}
	for _, c := range conflicts {
		f := fieldIndex(c.Field)
		line := r.Lines[f]
		if line == 0 {
			line = r.Line
		}
		b.report(line, key, b.names[f], fmt.Sprintf(
			"duplicate of the user on line %d with a different value (%q there, %q here): this record is skipped and line %d is kept; make the records agree or remove one",
			b.lines[i], c.Kept, c.Other, b.lines[i]))
	}
}

// fieldIndex returns the field known by its default name.
func fieldIndex(defaultName string) Field {
	for f, n := range DefaultNames() {
		if n == defaultName {
			return Field(f)
		}
	}
	panic("userrec: no field " + defaultName)
}

// Result returns the users and problems. It fails when the file holds no
// record, or no valid one: an empty source would remove every user.
func (b *Builder) Result() (*source.Result, error) {
	sort.SliceStable(b.problems, func(i, j int) bool { return b.problems[i].Line < b.problems[j].Line })
	if b.records == 0 {
		return nil, fmt.Errorf("%s: no user records; an empty source would remove every user, so it is refused: add users or remove this source", b.file)
	}
	switch {
	case b.users.Len() > 0:
	case b.leftByFilter > 0:
		return nil, fmt.Errorf("%s: the filter expression left none of its %d user records (%d were left out, the others were bad); an empty source would remove every user, so it is refused: check the filter", b.file, b.records, b.leftByFilter)
	case len(b.filtered) == 0 || len(b.problems) > 0:
		return nil, fmt.Errorf("%s: none of its %d user records is valid (%s); fix them or remove this source", b.file, b.records, b.firstProblems(3))
	default:
		// Every record is outside the run's scope groups: nothing of this
		// source takes part, and nothing is removed for it.
	}
	found := b.mapper.ExactGroupsNamed(slices.Collect(maps.Keys(b.mapped)))
	return &source.Result{Users: b.users, Defaulted: b.defaulted, Problems: b.problems, Notices: b.unmapped, FoundGroups: found,
		Filtered: b.filtered, Traces: b.traces}, nil
}

func (b *Builder) firstProblems(n int) string {
	var msgs []string
	for i := 0; i < len(b.problems) && i < n; i++ {
		msgs = append(msgs, b.problems[i].String())
	}
	if len(b.problems) > n {
		msgs = append(msgs, fmt.Sprintf("and %d more", len(b.problems)-n))
	}
	return strings.Join(msgs, "; ")
}

// recordCheck collects the problems of one record.
type recordCheck struct {
	b         *Builder
	r         *Record
	id        string
	fail      bool
	defaulted source.Defaulted     // the values taken from the defaults
	computed  [expr.NumFields]bool // the fields a set expression computed
}

func (c *recordCheck) problem(f Field, format string, args ...any) {
	name, reason := c.b.names[f], fmt.Sprintf(format, args...)
	if f < Groups && c.computed[f] {
		name = "set." + expr.Field(f).Name()
		reason += " (computed by the expression " + c.b.prog.Expression(name) + ")"
	}
	c.b.report(c.line(f), c.id, name, reason)
	c.fail = true
}

// line is the line of the record's field f.
func (c *recordCheck) line(f Field) int {
	if line := c.r.Lines[f]; line != 0 {
		return line
	}
	return c.r.Line
}

// user builds the user of r, given what the expressions made of it (out), and says
// which of its values are defaults; ok is false when r has problems, which
// are all reported.
func (b *Builder) user(r *Record, out *expr.Outcome) (u reconcile.User, d source.Defaulted, ok bool) {
	c := recordCheck{b: b, r: r, computed: out.Set}
	bad := c.invalidText()
	c.id = recordID(r)
	for _, e := range r.Extra {
		c.b.report(e.Line, c.id, e.Field, e.Reason)
		c.fail = true
	}
	for _, f := range bad {
		c.problem(f.field, "%s", textenc.Invalid(f.at))
	}
	if len(bad) > 0 { // the other checks of these values would only repeat it
		return reconcile.User{}, 0, false
	}
	u = c.identityOf()
	v := &r.Values
	u.FirstName = c.name(FirstName, v[FirstName])
	u.LastName = c.name(LastName, v[LastName])
	u.Country = c.country(v[Country])
	if c.fail {
		return reconcile.User{}, 0, false
	}
	u.Groups = source.UnionGroups(b.mapGroups(r.Groups, c.line(Groups)), out.Groups)
	if reason := source.GroupNamesProblem(u.Groups); reason != "" {
		c.problem(Groups, "%s: this record is skipped", reason)
		return reconcile.User{}, 0, false
	}
	return u, c.defaulted, true
}

// badText is a value that is not UTF-8: its field and the position of
// its first bad byte.
type badText struct {
	field Field
	at    int
}

// invalidText returns the values of the record that are not UTF-8 and
// makes them valid (each bad byte a U+FFFD), so that messages quoting
// them stay readable.
func (c *recordCheck) invalidText() []badText {
	var out []badText
	for f, v := range c.r.Values {
		if utf8.ValidString(v) || Field(f) == Groups { // the groups are checked below
			continue
		}
		out = append(out, badText{Field(f), textenc.FirstInvalid(v)})
		c.r.Values[f] = strings.ToValidUTF8(v, "\uFFFD")
	}
	for _, g := range c.r.Groups {
		if !utf8.ValidString(g) {
			return append(out, badText{Groups, textenc.FirstInvalid(g)})
		}
	}
	return out
}

// identityOf returns the identity (type, email, username, domain) of the
// record, reporting its problems.
func (c *recordCheck) identityOf() (u reconcile.User) {
	v := &c.r.Values
	u.Email = strings.TrimSpace(v[Email])
	u.Username = strings.TrimSpace(v[Username])
	c.id = recordID(c.r)
	u.Type = c.identityType(v[Type])
	c.identity(&u, strings.TrimSpace(v[Domain]))
	return u
}

func (c *recordCheck) identityType(s string) reconcile.IdentityType {
	switch t := reconcile.IdentityType(s); t {
	case reconcile.FederatedID, reconcile.EnterpriseID, reconcile.VendorID:
		return t // the usual spelling, without allocating
	}
	if strings.TrimSpace(s) == "" {
		c.defaulted |= source.DefaultedType
		return c.b.typ
	}
	t, ok := reconcile.ParseIdentityType(s)
	if !ok {
		c.problem(Type, "unknown identity type %q: use federatedID, enterpriseID or vendorID (or leave it empty for %s)", s, c.b.typ)
	}
	return t
}

// identity checks the email, username and domain of u and sets u.Domain.
func (c *recordCheck) identity(u *reconcile.User, domain string) {
	if u.Type == reconcile.FederatedID && u.Username != "" && !strings.Contains(u.Username, "@") {
		c.usernameIdentity(u, domain)
		return
	}
	if u.Email == "" && strings.Contains(u.Username, "@") {
		u.Email = u.Username
	}
	if u.Email == "" {
		c.problem(Email, "required, but the record%s has none: the record is skipped; fill in the email in the source", c.namedBy())
		return
	}
	if err := checkEmail(u.Email); err != nil {
		c.problem(Email, "%v", err)
		return
	}
	if u.Type != reconcile.FederatedID && u.Username != "" && !strings.EqualFold(u.Username, u.Email) {
		c.problem(Username, "%q differs from the email: a %s's username is its email, leave it empty", u.Username, u.Type)
	}
	u.Domain = c.domain(domain, emailDomain(u.Email))
}

// namedBy is " of First Last" for a record with a name, else "": the
// person a record without an email stands for.
func (c *recordCheck) namedBy() string {
	v := &c.r.Values
	if name := strings.TrimSpace(strings.TrimSpace(v[FirstName]) + " " + strings.TrimSpace(v[LastName])); name != "" {
		return " of " + name
	}
	return ""
}

// usernameIdentity checks a Federated ID known by a username that is not an email.
func (c *recordCheck) usernameIdentity(u *reconcile.User, domain string) {
	if u.Email != "" {
		if err := checkEmail(u.Email); err != nil {
			c.problem(Email, "%v", err)
		}
	}
	u.Domain = c.domain(domain, emailDomain(u.Email))
	if u.Domain == "" {
		c.problem(Domain, "the Federated ID %q has a username that is not an email, so it needs a domain: fill the %s field or set defaultDomain", u.Username, c.b.names[Domain])
	}
}

// domain returns the record's domain, else the email's domain part, else
// the default domain.
func (c *recordCheck) domain(given, fromEmail string) string {
	d := given
	if d == "" {
		d = fromEmail
	}
	if d == "" {
		d = c.b.domain
	}
	if strings.ContainsAny(d, "@ \t") {
		c.problem(Domain, "%q is not a domain (e.g. example.com)", d)
	}
	return d
}

func emailDomain(email string) string {
	if at := strings.LastIndexByte(email, '@'); at >= 0 {
		return email[at+1:]
	}
	return ""
}

func (c *recordCheck) name(f Field, s string) string {
	s = strings.TrimSpace(s)
	if err := umwire.CheckName(s); err != nil {
		c.problem(f, "%v", err)
	}
	return s
}

// country returns the record's country in upper case, else the default.
func (c *recordCheck) country(s string) string {
	s = strings.ToUpper(strings.TrimSpace(s))
	if s == "" {
		c.defaulted |= source.DefaultedCountry
		return c.b.country
	}
	if !umwire.IsCountryCode(s) {
		c.problem(Country, "%q is not an ISO 3166-1 alpha-2 country code (e.g. US, DE, GB)", c.r.Values[Country])
	}
	return s
}

// mapGroups returns the target groups of directory groups (see
// targetsOf).
func (b *Builder) mapGroups(groups []string, line int) []string {
	var out []string
	for _, g := range groups {
		out = source.UnionGroups(out, b.targetsOf(g, line))
	}
	return out
}

// unmappedReason says that no rule maps directory group g: with the rule
// whose directory group is spelt nearly as g, when there is one (a typo
// in the mapping or the file), else what rule to add.
func (b *Builder) unmappedReason(g string) string {
	if near := suggest.Nearest(g, b.mapper.ExactGroups()); near != "" {
		return fmt.Sprintf("group %q matches no mapping rule, so its members get nothing from it; did you mean the rule's directory group %q? fix the spelling in the mapping or in the file", g, near)
	}
	return fmt.Sprintf("group %q matches no mapping rule, so its members get nothing from it (it is not synced); "+
		"add a rule for it, or the rule {pattern: \"(.*)\", targets: [\"$1\"]} to use the file's group names as target group names", g)
}

// targetsOf returns the target groups of directory group g, mapped once
// per file. A group that no rule maps gets a notice, with line, the first
// time it is seen.
func (b *Builder) targetsOf(g string, line int) []string {
	targets, ok := b.mapped[g]
	if ok {
		return targets
	}
	if !b.mapper.Empty() {
		targets = b.mapper.MapName(g)
	}
	b.mapped[g] = targets
	if len(targets) == 0 {
		b.unmapped = append(b.unmapped, source.Problem{
			Source: b.source, File: b.file, Line: line, Field: b.names[Groups], Reason: b.unmappedReason(g)})
	}
	return targets
}
