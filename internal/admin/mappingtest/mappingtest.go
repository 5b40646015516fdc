// Package mappingtest runs an administrator's expectations of a
// configuration offline (`orgsync test FILE`): given directory users (the
// configured file sources, or stand-ins: records written in the test file,
// or another file) and the users the organizations have now, this user
// gets these groups in this organization, this one is left out, that one
// is unmatched. No service and no directory is contacted: the plan is made
// by the run's own code (package run) against the organizations the test
// file describes, so it is the plan `orgsync plan` would make; a failed
// expectation prints the difference and the explanation `plan --explain`
// gives for the user.
package mappingtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/internal/view"
	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/all"
)

// Result counts a file's expectations.
type Result struct {
	Passed, Failed int
}

// Run runs the test file at path, writing each failed expectation (the
// difference and the explanation) and a summary line to w.
func Run(ctx context.Context, path string, w io.Writer) (Result, error) {
	f, err := Read(path)
	if err != nil {
		return Result{}, err
	}
	tmp, err := os.MkdirTemp("", "orgsync-test-")
	if err != nil {
		return Result{}, err
	}
	defer os.RemoveAll(tmp)
	// The records' file has the test file's lines: messages name the
	// test file.
	var out strings.Builder
	r, err := f.run(ctx, tmp, &out)
	fmt.Fprint(w, strings.ReplaceAll(out.String(), filepath.Join(tmp, filepath.Base(f.Path)), f.Path))
	return r, err
}

// run runs the file's expectations, the stand-ins' files in tmp.
func (f *File) run(ctx context.Context, tmp string, w io.Writer) (Result, error) {
	cfg, err := f.load(tmp)
	if err != nil {
		return Result{}, err
	}
	plans, _, err := f.plan(ctx, cfg, "")
	if err != nil {
		return Result{}, err
	}
	for _, p := range plans.Sources.Problems {
		fmt.Fprintf(w, "%s: source problem: %s\n", f.Path, p.String())
	}
	var r Result
	for _, e := range f.Expect {
		diff := check(e, plans, cfg)
		if diff == "" {
			r.Passed++
			continue
		}
		r.Failed++
		fmt.Fprintf(w, "FAIL %s:%d: %s\n", f.Path, e.Line, diff)
		f.explain(ctx, cfg, e.User, w)
	}
	fmt.Fprintf(w, "%s: %d expectations met, %d not\n", f.Path, r.Passed, r.Failed)
	return r, nil
}

// plan makes the plans of cfg offline, explaining user (none: "").
func (f *File) plan(ctx context.Context, cfg *config.Config, user string) (*run.Plans, *run.Job, error) {
	byName := map[string][]reconcile.User{}
	for name, users := range f.Org {
		if name == "" {
			name = cfg.Primary().Name
		}
		if _, _, ok := findOrg(cfg, name); !ok {
			return nil, nil, fmt.Errorf("%s: organization: the configuration has no organization %q", f.Path, name)
		}
		byName[name] = users
	}
	current := func(t *config.NamedTarget) *reconcile.Current {
		return &reconcile.Current{Users: reconcile.UsersOf(byName[t.Name]...)}
	}
	j, err := run.New(cfg, run.Overrides{Explain: user}, run.Options{Current: current})
	if err != nil {
		return nil, nil, err
	}
	plans, err := j.Plan(ctx)
	if err != nil {
		return nil, nil, err
	}
	for _, p := range plans.Orgs {
		if p.Err != nil {
			return nil, nil, fmt.Errorf("%s: %w", p.Org.Path(), p.Err)
		}
	}
	return plans, j, nil
}

// explain writes what plan --explain says of user.
func (f *File) explain(ctx context.Context, cfg *config.Config, user string, w io.Writer) {
	plans, j, err := f.plan(ctx, cfg, user)
	if err != nil {
		fmt.Fprintf(w, "  (no explanation: %v)\n", err)
		return
	}
	var b strings.Builder
	view.Explain(&b, j.Explain(plans))
	for _, line := range strings.Split(strings.Trim(b.String(), "\n"), "\n") {
		fmt.Fprintf(w, "  %s\n", line)
	}
}

// findOrg returns organization name of cfg and its index.
func findOrg(cfg *config.Config, name string) (*config.NamedTarget, int, bool) {
	for i := range cfg.Targets {
		if cfg.Targets[i].Name == name {
			return &cfg.Targets[i], i, true
		}
	}
	return nil, 0, false
}

// check returns what differs from expectation e in the plans ("" when it
// is met).
func check(e Expectation, plans *run.Plans, cfg *config.Config) string {
	var p *run.OrgPlan
	for _, op := range plans.Orgs {
		if e.Org == "" && op.Org == cfg.Primary() || op.Org.Name == e.Org {
			p = op
		}
	}
	where := ""
	if cfg.MultiOrg() {
		where = " in " + orgName(e, cfg)
	}
	if p == nil {
		return fmt.Sprintf("%s: the configuration has no organization %q", e.User, e.Org)
	}
	got, given := find(p.Desired.List(), e.User)
	inSources := hasRecord(plans, e.User)
	switch {
	case e.Unmatched && slices.ContainsFunc(p.Plan.Unmatched.List(), func(u reconcile.User) bool { return source.Explains(e.User, u.Email, u.Username) }):
		return ""
	case e.Unmatched && inSources:
		return fmt.Sprintf("%s%s: want unmatched, but a source has the user", e.User, where)
	case e.Unmatched:
		return fmt.Sprintf("%s%s: want unmatched, but the organization has no such user (list it under organization:)", e.User, where)
	case !inSources:
		return fmt.Sprintf("%s%s: no source has a record with this email or username", e.User, where)
	case e.LeftOut && !given:
		return ""
	case e.LeftOut:
		return fmt.Sprintf("%s%s: want left out, but the configuration gives the user the groups %s", e.User, where, list(got.Groups))
	case !given:
		return fmt.Sprintf("%s%s: want the groups %s, but the user is left out", e.User, where, list(e.Groups))
	}
	missing, extra := setDiff(e.Groups, got.Groups), setDiff(got.Groups, e.Groups)
	if len(missing) == 0 && len(extra) == 0 {
		return ""
	}
	return fmt.Sprintf("%s%s: groups differ\n  want: %s\n  got:  %s\n  missing: %s\n  extra:   %s",
		e.User, where, list(e.Groups), list(got.Groups), list(missing), list(extra))
}

// orgName names the organization of e.
func orgName(e Expectation, cfg *config.Config) string {
	if e.Org == "" {
		return cfg.Primary().Name
	}
	return e.Org
}

// find returns the user named name (email or username) among users.
func find(users []reconcile.User, name string) (reconcile.User, bool) {
	for _, u := range users {
		if source.Explains(name, u.Email, u.Username) {
			return u, true
		}
	}
	return reconcile.User{}, false
}

// hasRecord reports whether a source has a record of the user, in the run
// or left out of it.
func hasRecord(plans *run.Plans, name string) bool {
	d := plans.Sources
	for _, users := range [][]reconcile.User{d.Users.List(), d.Filtered, plans.Scope.Out} {
		if _, ok := find(users, name); ok {
			return true
		}
	}
	return false
}

// setDiff returns the names of a not in b.
func setDiff(a, b []string) []string {
	var out []string
	for _, g := range a {
		if !slices.Contains(b, g) {
			out = append(out, g)
		}
	}
	return out
}

func list(groups []string) string {
	if len(groups) == 0 {
		return "(none)"
	}
	return strings.Join(groups, ", ")
}

// load reads the configuration with the stand-ins in place of their
// sources, and without what only a run against the service needs (its
// address and credentials, the state directory, the log file, the
// notifications, the unmatched-users report), whose files need not exist
// here. Problems keep the configuration file's lines.
func (f *File) load(tmp string) (*config.Config, error) {
	data, err := os.ReadFile(f.Config)
	if err != nil {
		return nil, fmt.Errorf("%s: config: %w", f.Path, err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		_, perr := config.Parse(data, f.Config) // says what is wrong, on its line
		return nil, errors.Join(perr, err)
	}
	root := doc.Content[0]
	if err := f.replaceSources(root, tmp); err != nil {
		return nil, err
	}
	offline(root)
	return config.ParseNode(&doc, f.Config)
}

// replaceSources puts each stand-in in place of its source's kind block;
// the source's name and expressions stay. A source without one must read
// a local file (source.ReadsLocalFile): a directory is never read here.
func (f *File) replaceSources(root *yaml.Node, tmp string) error {
	sources := value(root, "sources")
	if sources == nil || sources.Kind != yaml.SequenceNode {
		return nil // Load says what is wrong
	}
	for i := range f.StandIns {
		if i >= len(sources.Content) {
			return f.errorf(f.StandIns[i].Line, "sources[%d]: the configuration has %d sources", i, len(sources.Content))
		}
	}
	kinds := all.Kinds()
	var errs []error
	for i, src := range sources.Content {
		s, ok := f.StandIns[i]
		kind := kindOf(src)
		k, _ := kinds.Lookup(kind)
		_, local := k.LocalFile()
		file := s.File
		if ok && s.Records != nil {
			file = recordsPath(tmp, f.Path, kinds)
			if err := os.WriteFile(file, f.recordsFile(s), 0o600); err != nil {
				return err
			}
		}
		fk, lf, readable := kinds.ForFile(file)
		switch {
		case !ok && kind != "" && !local:
			errs = append(errs, fmt.Errorf("%s: sources[%d] (%s) is read from a server, which orgsync test never does: give sources[%d] records (or a file) in the test file", f.Path, i, kind, i))
		case !ok:
		case s.Records == nil && readable && fk.Key == kind:
			setValue(value(src, kind), lf.Key, file) // the source's own settings, another file
		case readable:
			setKind(src, fk.Key, withDefaults(value(src, kind), map[string]string{lf.Key: file}))
		default:
			errs = append(errs, f.errorf(s.Line, "sources[%d].file: %s is not a file a source reads (%s)", i, s.File, strings.Join(kinds.FileExtensions(), ", ")))
		}
	}
	return errors.Join(errs...)
}

// recordsPath is where the records of a stand-in are written: a file
// named after the test file, which is YAML, as the records are, with the
// extension of the file the YAML kind reads when the test file's name has
// none a kind reads.
func recordsPath(tmp, test string, kinds source.Kinds) string {
	path := filepath.Join(tmp, filepath.Base(test))
	if _, _, ok := kinds.ForFile(path); !ok {
		path += ".yaml"
	}
	return path
}

// withDefaults adds to keys the defaults of the source's block (its
// defaultType, defaultCountry and defaultDomain, or its users' for a
// directory), which records without those fields take.
func withDefaults(block *yaml.Node, keys map[string]string) map[string]string {
	for _, n := range []*yaml.Node{block, value(block, "users")} {
		for _, key := range []string{"defaultType", "defaultCountry", "defaultDomain"} {
			if v := value(n, key); v != nil && v.Kind == yaml.ScalarNode {
				keys[key] = v.Value
			}
		}
	}
	return keys
}

// kindOf returns the key of the source entry's kind block: the key that
// is neither name nor an expression ("" when none).
func kindOf(src *yaml.Node) string {
	if src.Kind != yaml.MappingNode {
		return ""
	}
	for i := 0; i+1 < len(src.Content); i += 2 {
		switch k := src.Content[i].Value; k {
		case "name", "filter", "groups", "set":
		default:
			return k
		}
	}
	return ""
}

// setKind replaces the kind block of source entry src with kind's block
// holding keys.
func setKind(src *yaml.Node, kind string, keys map[string]string) {
	if k := kindOf(src); k != "" {
		remove(src, k)
	}
	block := &yaml.Node{Kind: yaml.MappingNode, Line: src.Line}
	for k, v := range keys {
		setValue(block, k, v)
	}
	src.Content = append(src.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: kind, Line: src.Line}, block)
}

// offline takes out of the configuration what only a run against the
// service needs.
func offline(root *yaml.Node) {
	for _, key := range []string{"state", "logging", "notify", "status"} {
		remove(root, key)
	}
	targets := []*yaml.Node{value(root, "target")}
	if list := value(root, "targets"); list != nil && list.Kind == yaml.SequenceNode {
		targets = append(targets, list.Content...)
	}
	for _, t := range targets {
		if t == nil || t.Kind != yaml.MappingNode {
			continue
		}
		for _, key := range []string{"authBaseURL", "tls", "proxy"} {
			remove(t, key)
		}
		setValue(t, "baseURL", "https://orgsync-test.invalid")
		if id := value(t, "orgId"); id != nil && id.Value == config.PlaceholderOrgID {
			id.Value = "0123456789ABCDEF0@VendorOrg" // not used offline; init's placeholder is refused
		}
		remove(t, "auth")
		auth := &yaml.Node{Kind: yaml.MappingNode, Line: t.Line}
		setValue(auth, "method", config.AuthOAuth)
		setValue(auth, "clientId", "orgsync-test")
		secret := &yaml.Node{Kind: yaml.MappingNode, Line: t.Line}
		setValue(secret, "env", "ORGSYNC_TEST_NO_SECRET")
		auth.Content = append(auth.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "clientSecret", Line: t.Line}, secret)
		t.Content = append(t.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "auth", Line: t.Line}, auth)
		if p := value(t, "policy"); p != nil {
			remove(p, "reportFile")
		}
	}
	if p := value(root, "policy"); p != nil {
		remove(p, "reportFile")
	}
}

// value returns the value of key in mapping n (nil when it has none).
func value(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// setValue sets key of mapping n to a string.
func setValue(n *yaml.Node, key, v string) {
	if old := value(n, key); old != nil {
		*old = yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v, Line: old.Line, Column: old.Column}
		return
	}
	n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key, Line: n.Line},
		&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v, Line: n.Line})
}

// remove takes key out of mapping n.
func remove(n *yaml.Node, key string) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			n.Content = append(n.Content[:i], n.Content[i+2:]...)
			return
		}
	}
}
