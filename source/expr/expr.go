// Package expr compiles and runs the CEL expressions of a source
// (github.com/google/cel-go, the language of Kubernetes' admission
// policies) over the records the source reads:
//
//   - filter: a bool; a record for which it is false takes no part in the run,
//   - groups: a list of strings; target groups added to those the mapping
//     rules give,
//   - set: per user field (firstname, lastname, email, country, type,
//     username, domain), a string that replaces the record's value before
//     the record is checked.
//
// An expression sees one record (see Record) as these variables, each
// typed, so that a misspelt field or a wrong type fails when the
// configuration is loaded, not on each record:
//
//	user.firstname, user.lastname, user.email, user.country, user.type,
//	user.username, user.domain    string: the record's values as read
//	user.attributes               map(string, string): the extra attributes
//	user.attributeValues          map(string, list(string)): every value of
//	                              each extra attribute, in the source's order
//	directoryGroups               list(string): the record's directory groups
//
// user.attributeValues has the keys of user.attributes: an attribute
// with one value gives a list of it, one without ("") an empty list, a
// multi-valued one (Record.Values) all its values, where
// user.attributes has one of them or all joined by commas, as the source
// says. A number is its decimal text (int(...) and double(...) convert
// it).
//
// The CEL standard library, the string extensions (split, lowerAscii,
// replace, ...) and optional values (user.attributes.?c.orValue("US"))
// are available. No expression can stall a run, whatever the records
// hold: records are bounded (MaxValueLen, MaxAttributes, which counts
// every value of user.attributeValues, MaxDirectoryGroups); replace, join and format refuse to make a string
// over MaxResultLen; an expression whose cost CEL cannot bound below
// MaxCost for such records is stopped on each record at MaxCost or
// MaxEvalTime, and not run again in the run after MaxLimitHits records.
// A Program is compiled once and is safe for concurrent use; a Record is
// for one goroutine at a time. Run also applies a run's scope groups
// (WithScope).
package expr

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/ext"
	"github.com/google/cel-go/interpreter"

	"github.com/orgsync/orgsync/source/diag"
)

// Config holds the expressions of one source; each is optional.
type Config struct {
	// Filter decides which records take part in the run.
	Filter string `yaml:"filter,omitempty"`
	// Groups computes extra target groups.
	Groups string `yaml:"groups,omitempty"`
	// Set computes user fields, by field name.
	Set map[string]string `yaml:"set,omitempty"`
}

// Empty reports whether no expression is set.
func (c *Config) Empty() bool { return c.Filter == "" && c.Groups == "" && len(c.Set) == 0 }

// Field is a user field an expression reads (user.<name>) or set computes.
type Field int

// The user fields, in the order of Fields.
const (
	FirstName Field = iota
	LastName
	Email
	Country
	Type
	Username
	Domain
	NumFields
)

// fieldNames are the names of the fields in expressions and under set.
var fieldNames = [NumFields]string{"firstname", "lastname", "email", "country", "type", "username", "domain"}

// setKeys are the keys of the set expressions, as messages name them.
var setKeys = func() (keys [NumFields]string) {
	for f, n := range fieldNames {
		keys[f] = "set." + n
	}
	return keys
}()

// Name returns the field's name, as expressions write it.
func (f Field) Name() string { return fieldNames[f] }

// Record is one source record as the expressions see it. A source fills
// it from what it read, before checking the values: Fields are the raw
// values (trimmed), Attributes the extra attributes it exposes (a missing
// one reads as an absent key), Values every value of those of them that
// may have several (see user.attributeValues; needed only when
// Program.ReadsValues), DirectoryGroups the names of the record's
// directory groups. A source may reuse one Record, and one
// Attributes map whose values it changes in place, for all its records:
// Run then converts them for CEL once, not once per record.
type Record struct {
	Fields          [NumFields]string
	Attributes      map[string]string
	Values          map[string][]string
	DirectoryGroups []string

	act activation // reused by Run: a Record is for one goroutine at a time
	// The CEL values of Attributes and DirectoryGroups, with what they
	// were made from.
	attrs     ref.Val
	attrsOf   uintptr
	attrsLen  int
	groups    ref.Val
	groupsOf  *string
	groupsLen int
}

// MaxCost bounds the cost of one evaluation (CEL's cost: about one unit
// per operation, more for string work proportional to its length).
// Ordinary expressions cost tens. An expression whose cost CEL can bound
// below MaxCost at load, given the limits on records below, runs without
// counting; any other is counted and stopped at MaxCost on each record.
const MaxCost = 1_000_000

// Limits on what one record hands the expressions and on what they give
// back; a record over one is reported and skipped.
const (
	MaxValueLen        = 64 << 10 // bytes of a field, an attribute value or a group name
	MaxAttributes      = 1000     // extra attributes of a record; their values, when the expressions read user.attributeValues
	MaxDirectoryGroups = 10000    // directory groups of a record
	MaxGroups          = 1000     // groups one groups expression gives
)

// Program is a compiled set of expressions. A nil *Program has none: Run
// keeps every record and changes nothing.
type Program struct {
	filter *program
	groups *program
	set    [NumFields]*program
	setAny bool
	values bool              // an expression reads user.attributeValues
	scope  []string          // see WithScope
	text   map[string]string // key -> expression, for messages
	// stopped counts the records on which an expression hit a limit;
	// see MaxLimitHits and WithScope.
	stopped *atomic.Int32
}

// Compile checks and compiles the expressions. Every problem is reported
// at once, each named by its key ("filter", "groups", "set.firstname").
// An empty Config compiles to nil.
func Compile(c Config) (*Program, error) {
	if c.Empty() {
		return nil, nil
	}
	env, err := newEnv()
	if err != nil {
		return nil, fmt.Errorf("expressions: %w", err)
	}
	p := &Program{text: map[string]string{}, stopped: new(atomic.Int32)}
	var errs diag.FieldErrors
	// add compiles text; a load error names key as the file writes it,
	// the text is kept under the canonical key that run-time messages use.
	add := func(key, canonical, text string, want *cel.Type, dst **program) {
		prg, err := compile(env, text, want)
		if err != nil {
			errs = append(errs, diag.FieldError{Field: key, Reason: err.Error()})
			return
		}
		*dst = prg
		p.text[canonical] = text
		p.values = p.values || prg.values
	}
	if c.Filter != "" {
		add("filter", "filter", c.Filter, cel.BoolType, &p.filter)
	}
	if c.Groups != "" {
		add("groups", "groups", c.Groups, cel.ListType(cel.StringType), &p.groups)
	}
	for _, name := range slices.Sorted(maps.Keys(c.Set)) {
		f, ok := fieldNamed(name)
		if !ok {
			errs = append(errs, diag.FieldError{Field: "set." + name,
				Reason: fmt.Sprintf("%q is not a user field: set one of %s", name, strings.Join(fieldNames[:], ", "))})
			continue
		}
		if p.set[f] != nil {
			errs = append(errs, diag.FieldError{Field: "set." + name, Reason: fmt.Sprintf("%s is set twice (letter case is ignored): keep one", f.Name())})
			continue
		}
		add("set."+name, setKeys[f], c.Set[name], cel.StringType, &p.set[f])
		p.setAny = true
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return p, nil
}

// ReadsValues reports whether an expression reads user.attributeValues:
// a source need only fill Record.Values then.
func (p *Program) ReadsValues() bool { return p != nil && p.values }

// WithScope returns a copy of p for one run, scoped to some directory
// groups: Run leaves out, as the filter does, the records in none of them
// (by name, or a DN's or RDN's first value; letter case ignored); without
// groups, every record takes part. The copy counts afresh the records on
// which an expression goes over its limits (MaxLimitHits), so that the
// runs of a daemon, which compiles its expressions once, do not inherit
// an earlier run's count. p may be nil: without groups the copy is then
// nil too. p itself is not changed.
func (p *Program) WithScope(groups []string) *Program {
	if p == nil && len(groups) == 0 {
		return nil
	}
	run := &Program{text: map[string]string{}}
	if p != nil {
		*run = *p
	}
	run.scope, run.stopped = groups, new(atomic.Int32)
	return run
}

// newEnv declares the variables of a record.
func newEnv() (*cel.Env, error) {
	opts := append([]cel.EnvOption{ext.Strings()}, guardedStrings()...)
	opts = append(opts, letterCase()...)
	opts = append(opts, cel.OptionalTypes(),
		cel.Variable("user.attributes", cel.MapType(cel.StringType, cel.StringType)),
		cel.Variable("user.attributeValues", cel.MapType(cel.StringType, cel.ListType(cel.StringType))),
		cel.Variable("directoryGroups", cel.ListType(cel.StringType)))
	for _, n := range fieldNames {
		opts = append(opts, cel.Variable("user."+n, cel.StringType))
	}
	return cel.NewEnv(opts...)
}

// compile type-checks one expression against the type it must give.
func compile(env *cel.Env, text string, want *cel.Type) (*program, error) {
	if strings.TrimSpace(text) == "" {
		return nil, errors.New("empty expression: remove the key or write an expression")
	}
	ast, iss := env.Compile(text)
	if iss.Err() != nil {
		return nil, fmt.Errorf("not a valid expression: %s", explainIssues(text, iss.Err().Error()))
	}
	if !ast.OutputType().IsExactType(want) && ast.OutputType() != cel.DynType {
		return nil, fmt.Errorf("gives %s, but %s is needed: %s", ast.OutputType(), want, wantHint[want.String()])
	}
	opts := []cel.ProgramOption{cel.EvalOptions(cel.OptOptimize)}
	est, err := env.EstimateCost(ast, recordSizes{})
	counted := err != nil || est.Max > MaxCost
	if counted {
		opts = append(opts, cel.CostLimit(MaxCost), cel.InterruptCheckFrequency(interruptEvery))
	}
	prg, err := env.Program(ast, opts...)
	if err != nil {
		return nil, fmt.Errorf("cannot be prepared: %w", err)
	}
	return &program{Program: prg, counted: counted, reads: attributeReads(ast), values: readsValues(ast)}, nil
}

// recordSizes bounds the sizes of a record's values for CEL's static cost
// estimate (Record.check enforces them).
type recordSizes struct{}

// EstimateSize implements checker.CostEstimator.
func (recordSizes) EstimateSize(n checker.AstNode) *checker.SizeEstimate {
	path := n.Path()
	switch {
	case len(path) == 0:
		return nil
	case len(path) == 1 && path[0] == "directoryGroups":
		return &checker.SizeEstimate{Max: MaxDirectoryGroups}
	case len(path) == 1 && (path[0] == "user.attributes" || path[0] == "user.attributeValues"):
		return &checker.SizeEstimate{Max: MaxAttributes}
	case len(path) == 2 && path[0] == "user.attributeValues" && path[1] != "@keys":
		return &checker.SizeEstimate{Max: MaxAttributes} // one attribute's values
	}
	return &checker.SizeEstimate{Max: MaxValueLen}
}

// EstimateCallCost implements checker.CostEstimator: CEL's own estimates.
func (recordSizes) EstimateCallCost(string, string, *checker.AstNode, []checker.AstNode) *checker.CallEstimate {
	return nil
}

func fieldNamed(name string) (Field, bool) {
	for f, n := range fieldNames {
		if strings.EqualFold(n, name) {
			return Field(f), true
		}
	}
	return 0, false
}

// Error is an expression that failed on one record: the record is
// reported and skipped.
type Error struct {
	Key  string // "filter", "groups", "set.country"
	Expr string // the expression
	Err  error
}

func (e *Error) Error() string { return fmt.Sprintf("expression %s failed: %v", e.Expr, e.Err) }

func (e *Error) Unwrap() error { return e.Err }

// Outcome is what the expressions made of one record.
type Outcome struct {
	// Keep is false when the filter rejected the record, or it is in
	// none of the scope's groups (OutOfScope); the other expressions then
	// did not run.
	Keep       bool
	OutOfScope bool
	// Filter is the filter expression, when it rejected the record.
	Filter string
	// Groups are the groups expression's target groups: trimmed, without
	// empty names and duplicates (compared case-insensitively).
	Groups []string
	// Set says which fields set changed (Run wrote the computed value,
	// different from the record's, into it).
	Set [NumFields]bool
}

// Expression returns the text of the expression of key ("filter",
// "set.country"), "" when there is none: problems with a computed value
// quote it.
func (p *Program) Expression(key string) string {
	if p == nil {
		return ""
	}
	return p.text[key]
}

// LeftOut says why the record takes no part in the run: "scope" (it is
// in none of the scope groups), "filter", or "" when it takes part.
func (o *Outcome) LeftOut() string {
	switch {
	case o.OutOfScope:
		return "scope"
	case !o.Keep:
		return "filter"
	}
	return ""
}

// Trace writes into t what the expressions made of r, the record Run
// gave o for.
func (o *Outcome) Trace(t *diag.Trace, r *Record) {
	t.ExprGroups, t.LeftOut, t.Filter = o.Groups, o.LeftOut(), o.Filter
	for f, set := range o.Set {
		if set {
			if t.Set == nil {
				t.Set = map[string]string{}
			}
			t.Set[fieldNames[f]] = r.Fields[f]
		}
	}
}

// KeyOf returns the key of the expression err (from Run) comes from, as
// a problem's field: "filter", "groups", "set.country", or "expression"
// for a record over the limits.
func KeyOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Key
	}
	return "expression"
}

// Run runs the expressions over r: the filter, then set (which writes the
// computed fields into r.Fields; every set expression sees the record as
// it was read), then groups (which sees the computed fields). A record
// over the limits, or an expression failing on it, is an error (an
// *Error for an expression); r is then unchanged. A nil Program keeps
// every record and changes nothing.
func (p *Program) Run(r *Record) (Outcome, error) {
	out := Outcome{Keep: true}
	if p == nil {
		return out, nil
	}
	if err := r.check(p.values); err != nil {
		return Outcome{}, err
	}
	if len(p.scope) > 0 && !inGroups(r.DirectoryGroups, p.scope) {
		return Outcome{OutOfScope: true}, nil
	}
	a := &r.act
	*a = activation{r: r}
	if p.filter != nil {
		v, err := p.eval("filter", p.filter, a)
		if err != nil {
			return Outcome{}, err
		}
		keep, ok := v.(types.Bool)
		if !ok {
			return Outcome{}, p.fail("filter", fmt.Errorf("gave %s, not a bool", v.Type().TypeName()))
		}
		if out.Keep = bool(keep); !out.Keep {
			out.Filter = p.text["filter"]
			return out, nil
		}
	}
	if p.setAny {
		if err := p.runSet(a, &out); err != nil {
			return Outcome{}, err
		}
	}
	if p.groups != nil {
		v, err := p.eval("groups", p.groups, a)
		if err == nil {
			out.Groups, err = stringList(v)
		}
		if err != nil {
			return Outcome{}, p.fail("groups", err)
		}
	}
	return out, nil
}

// runSet computes the set fields and writes them into the record.
func (p *Program) runSet(a *activation, out *Outcome) error {
	var vals [NumFields]string
	for f, prg := range p.set {
		if prg == nil {
			continue
		}
		key := setKeys[f]
		v, err := p.eval(key, prg, a)
		if err != nil {
			return err
		}
		s, ok := v.(types.String)
		if !ok {
			return p.fail(key, fmt.Errorf("gave %s, not a string", v.Type().TypeName()))
		}
		if v := strings.TrimSpace(string(s)); v != a.r.Fields[f] {
			vals[f], out.Set[f] = v, true
		}
	}
	for f, set := range out.Set {
		if set {
			a.r.Fields[f] = vals[f]
		}
	}
	return nil
}

// inGroups reports whether one of groups is one of want: by its name,
// or, for a group written as a DN or RDN, by its first RDN's value;
// letter case is ignored.
func inGroups(groups, want []string) bool {
	for _, g := range groups {
		name := g
		if rdn, _, _ := strings.Cut(g, ","); strings.Contains(rdn, "=") {
			_, name, _ = strings.Cut(rdn, "=")
		}
		for _, w := range want {
			if strings.EqualFold(strings.TrimSpace(w), g) || strings.EqualFold(strings.TrimSpace(w), strings.TrimSpace(name)) {
				return true
			}
		}
	}
	return false
}

// check enforces the limits on a record's values; values: those of
// user.attributeValues too.
func (r *Record) check(values bool) error {
	for f, v := range r.Fields {
		if len(v) > MaxValueLen {
			return fmt.Errorf("the %s value is %d bytes long, more than the %d expressions accept", fieldNames[f], len(v), MaxValueLen)
		}
	}
	if len(r.Attributes) > MaxAttributes {
		return fmt.Errorf("the record has %d extra attributes, more than the %d expressions accept", len(r.Attributes), MaxAttributes)
	}
	for k, v := range r.Attributes {
		if len(v) > MaxValueLen {
			return fmt.Errorf("attribute %s is %d bytes long, more than the %d expressions accept", k, len(v), MaxValueLen)
		}
	}
	if values {
		if err := r.checkValues(); err != nil {
			return err
		}
	}
	if len(r.DirectoryGroups) > MaxDirectoryGroups {
		return fmt.Errorf("the record has %d directory groups, more than the %d expressions accept", len(r.DirectoryGroups), MaxDirectoryGroups)
	}
	for _, g := range r.DirectoryGroups {
		if len(g) > MaxValueLen {
			return fmt.Errorf("a directory group name is %d bytes long, more than the %d expressions accept", len(g), MaxValueLen)
		}
	}
	return nil
}

func (p *Program) fail(key string, err error) *Error {
	return &Error{Key: key, Expr: p.text[key], Err: err}
}

// stringList converts a CEL list of strings to trimmed, non-empty,
// distinct names.
func stringList(v ref.Val) ([]string, error) {
	lister, ok := v.(interface {
		Size() ref.Val
		Get(ref.Val) ref.Val
	})
	if !ok || v.Type() != types.ListType {
		return nil, fmt.Errorf("gave %s, not a list of strings", v.Type().TypeName())
	}
	n, _ := lister.Size().(types.Int)
	if n > MaxGroups {
		return nil, fmt.Errorf("gave %d groups, more than the %d a record may have", n, MaxGroups)
	}
	var out []string
	for i := types.Int(0); i < n; i++ {
		s, ok := lister.Get(i).(types.String)
		if !ok {
			return nil, fmt.Errorf("item %d is not a string", i)
		}
		out = appendGroup(out, strings.TrimSpace(string(s)))
	}
	return out, nil
}

// appendGroup adds g to out unless it is empty or already there
// (case-insensitively).
func appendGroup(out []string, g string) []string {
	if g == "" {
		return out
	}
	for _, o := range out {
		if strings.EqualFold(o, g) {
			return out
		}
	}
	return append(out, g)
}

// activation resolves the variables of a record without building a map;
// the attributes and groups are converted once per record.
type activation struct{ r *Record }

// ResolveName implements interpreter.Activation.
func (a *activation) ResolveName(name string) (any, bool) {
	switch name {
	case "user.attributes":
		return a.r.attributes(), true
	case "user.attributeValues":
		return attributeValues{a.r}, true
	case "directoryGroups":
		return a.r.directoryGroups(), true
	}
	if f, ok := strings.CutPrefix(name, "user."); ok {
		for i, n := range fieldNames {
			if n == f {
				return types.String(a.r.Fields[i]), true
			}
		}
	}
	return nil, false
}

// attributes returns Attributes as a CEL map, converted again only when
// the map (or its size) is not the one converted last.
func (r *Record) attributes() ref.Val {
	ptr := reflect.ValueOf(r.Attributes).Pointer()
	if r.attrs == nil || ptr != r.attrsOf || len(r.Attributes) != r.attrsLen {
		r.attrs, r.attrsOf, r.attrsLen = types.NewStringStringMap(types.DefaultTypeAdapter, r.Attributes), ptr, len(r.Attributes)
	}
	return r.attrs
}

// directoryGroups returns DirectoryGroups as a CEL list, converted again
// only when the slice is not the one converted last (same array, same
// length).
func (r *Record) directoryGroups() ref.Val {
	var ptr *string
	if len(r.DirectoryGroups) > 0 {
		ptr = &r.DirectoryGroups[0]
	}
	if r.groups == nil || ptr != r.groupsOf || len(r.DirectoryGroups) != r.groupsLen {
		r.groups, r.groupsOf, r.groupsLen = types.NewStringList(types.DefaultTypeAdapter, r.DirectoryGroups), ptr, len(r.DirectoryGroups)
	}
	return r.groups
}

// Parent implements interpreter.Activation.
func (a *activation) Parent() interpreter.Activation { return nil }
