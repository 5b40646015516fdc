package source

import (
	"os"
	"path/filepath"
	"slices"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/secret"
	"github.com/orgsync/orgsync/source/diag"
	"github.com/orgsync/orgsync/source/expr"
	"github.com/orgsync/orgsync/source/mapping"
)

// Config is the configuration of one source kind: the block under the
// kind's key in an entry of the sources list (csv:, ldap:, ...). A kind's
// package implements it on a pointer to its own Config type, and the
// registry (package source/all) lists the kind in one line.
type Config interface {
	// Validate reports every problem of the block at once, each named by
	// its key path inside the block ("users.baseDN").
	Validate() []diag.FieldError
	// Label names the source in messages after its kind: a file's base
	// name or a server's address ("users.csv" in "sources[0] (csv
	// users.csv)").
	Label() string
	// Uses returns the files and secrets the block names, and the
	// attributes its expressions may read.
	Uses() Uses
	// Open returns the source named name (as in messages, e.g.
	// "sources[0] (csv users.csv)") for a valid block. It reads nothing:
	// Read does, each time anew.
	Open(name string, o Options) (Source, error)
}

// Uses is what a block names besides its own settings.
type Uses struct {
	// Files are the block's file paths other than secret files; the
	// loader makes relative ones relative to the configuration file.
	Files []*string
	// Secrets are the block's secret references by their key paths
	// ("password"); the loader resolves their files as it does Files and
	// checks that they can be read and that others cannot read them.
	Secrets map[string]*secret.Ref
	// ExtraAttributesKey is the key path that lists the attributes the
	// source reads for its expressions ("users.extraAttributes"), and
	// ExtraAttributes that list; "" for a kind whose records bring all
	// their attributes (the other columns of a file).
	ExtraAttributesKey string
	ExtraAttributes    []string
}

// Options are what every source is opened with besides its block.
type Options struct {
	// Mapper maps the directory groups to target groups; nil maps none.
	Mapper *mapping.Mapper
	// Log receives the source's log lines; nil: none.
	Log *zap.Logger
	// Expressions run over every record (see the package comment); nil:
	// none.
	Expressions *expr.Program
	// Key is the key path of the source's block in the configuration
	// file ("sources[0].ldap"), for messages that name a key to check;
	// "": not known.
	Key string
	// Explain names, by email or username, the user whose records Read
	// traces in Result.Traces (`orgsync plan --explain`); "": none.
	Explain string
	// CallerChecksGroups makes Read report the groups of exact mapping
	// rules that the source looked for and did not find in
	// Result.MissingGroups instead of failing: the caller, reading other
	// sources too, then fails the run unless one of them has those groups
	// (CheckGroups).
	CallerChecksGroups bool
	// ScopeGroups are the run's scope groups (scope.groups, or
	// --scope-groups): the source leaves out the records in none of them
	// (expr.Program.WithScope); none: every record takes part.
	ScopeGroups []string
}

// Logger returns o.Log, or a logger that logs nothing when it is nil.
func (o *Options) Logger() *zap.Logger {
	if o.Log == nil {
		return zap.NewNop()
	}
	return o.Log
}

// Kind is one source kind of the registry.
type Kind struct {
	// Key is the kind's key in an entry of the sources list.
	Key string
	// New returns an empty configuration of the kind, for the block to be
	// decoded into.
	New func() Config
	// Variants are the kind as `orgsync init` and `orgsync demo` offer it.
	Variants []Variant
}

// KindOf returns the kind whose key is key and whose block is a C, as
// init and demo offer it in variants:
// KindOf[csvfile.Config]("csv", csvfile.Variants()...).
func KindOf[C any, P interface {
	*C
	Config
}](key string, variants ...Variant) Kind {
	return Kind{Key: key, New: func() Config { return P(new(C)) }, Variants: variants}
}

// Variant is a kind as `orgsync init` and `orgsync demo` offer it, under a
// --source name of its own: a kind has one, named after it, or several
// when it serves different directories (ldap: OpenLDAP, Active Directory
// and FreeIPA).
type Variant struct {
	// Name is the value of --source.
	Name string
	// Starter is the part of init's starter configuration that holds the
	// sources and the mapping rules, with comments saying what to fill in.
	Starter string
	// Example is the example the demo syncs.
	Example Example
}

// Example is an example of the examples folder that `orgsync demo` syncs.
// What it reads (a throwaway directory server, a fake of the vendor's
// service) the demo starts: it registers those servers on its own side
// (internal/demo), so that no product package links a fake.
type Example struct {
	// Dir is the example's folder: examples/<Dir>/orgsync.yaml.
	Dir string
}

// WriteDemoSecret writes the demo secret of a fake of the vendor's
// service beside the configuration of the example in folder example of
// the examples copied under dir, as demo-secret (which the demo points the
// configuration at: {file: demo-secret}), readable by its owner only.
func WriteDemoSecret(dir, example, secret string) error {
	return os.WriteFile(filepath.Join(dir, example, "demo-secret"), []byte(secret), 0o600)
}

// Variant returns the variant named name (a --source value of init and
// demo).
func (ks Kinds) Variant(name string) (Variant, bool) {
	vs := ks.Variants()
	i := slices.IndexFunc(vs, func(v Variant) bool { return v.Name == name })
	if i < 0 {
		return Variant{}, false
	}
	return vs[i], true
}

// Variants returns the variants of every kind, in the registry's order.
func (ks Kinds) Variants() []Variant {
	var out []Variant
	for _, k := range ks {
		out = append(out, k.Variants...)
	}
	return out
}

// Kinds is the registry of source kinds, in the order messages list them.
type Kinds []Kind

// Lookup returns the kind whose key is key.
func (ks Kinds) Lookup(key string) (Kind, bool) {
	i := slices.IndexFunc(ks, func(k Kind) bool { return k.Key == key })
	if i < 0 {
		return Kind{}, false
	}
	return ks[i], true
}

// Keys returns the keys of the kinds, in order.
func (ks Kinds) Keys() []string {
	keys := make([]string, len(ks))
	for i, k := range ks {
		keys[i] = k.Key
	}
	return keys
}
