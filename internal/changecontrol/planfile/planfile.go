// Package planfile is a saved plan: the plans of the organizations with
// what is needed to check them before they are applied (plan --out, then
// apply FILE): the configuration's fingerprint, the sources' and each
// organization's, the creation time and the tool's version. Diff tells how
// a fresh plan differs from the saved one.
package planfile

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/orgsync/orgsync/internal/store/planjson"
	"github.com/orgsync/orgsync/internal/util/atomicfile"
	"github.com/orgsync/orgsync/internal/util/oneline"
	"github.com/orgsync/orgsync/reconcile"
)

// FormatVersion is the version of the saved plan's format, which it
// holds as formatVersion. Read reads every version from 1 to this one,
// and refuses a later one. A field added that an earlier release can pass
// over keeps the version; one whose meaning changes, or that goes, takes
// a new one (testdata/formats keeps a golden file of each, which the
// tests read).
const FormatVersion = 1

// File is a saved plan.
type File struct {
	FormatVersion int       `json:"formatVersion"`
	ToolVersion   string    `json:"toolVersion"`
	Created       time.Time `json:"created"`
	// ConfigFile is the configuration's path; Config the fingerprint of
	// its content.
	ConfigFile string `json:"configFile"`
	Config     string `json:"configFingerprint"`
	// Sources is the fingerprint of the desired users the sources gave.
	Sources string `json:"sourcesFingerprint"`
	// Flags are the one-off flags the plan was made with; apply makes its
	// fresh plan with them.
	Flags         Flags `json:"flags,omitzero"`
	Organizations []Org `json:"organizations"`
}

// Flags are the one-off flags of plan --out that shape a plan, as given
// (UsersFile made absolute).
type Flags struct {
	Orgs                 string `json:"orgs,omitempty"`
	MaxRemovals          string `json:"maxRemovals,omitempty"`
	ScopeGroups          string `json:"scopeGroups,omitempty"`
	UsersFile            string `json:"usersFile,omitempty"`
	ExcludeUnmappedUsers bool   `json:"excludeUnmappedUsers,omitempty"`
}

// String is the flags as a command line, empty when none is set.
func (f Flags) String() string {
	var out []string
	for _, fl := range []struct{ name, v string }{{"--orgs", f.Orgs}, {"--max-removals", f.MaxRemovals},
		{"--scope-groups", f.ScopeGroups}, {"--users-file", f.UsersFile}} {
		if fl.v != "" {
			out = append(out, fl.name+" "+fl.v)
		}
	}
	if f.ExcludeUnmappedUsers {
		out = append(out, "--exclude-unmapped-users")
	}
	return strings.Join(out, " ")
}

// Org is one organization's saved plan. The file holds it as orgJSON
// (its MarshalJSON), its plan in planjson's form.
type Org struct {
	Name  string
	OrgID string
	// Current is the fingerprint of the organization's users as read.
	Current string
	Plan    *reconcile.Plan
	// Keys are how the organization's configuration names the settings
	// of its policy (config.NamedTarget.PolicyKeys): Read gives them to
	// the plan (reconcile.Plan.Names), which is shown without the
	// configuration.
	Keys map[reconcile.Setting]string
}

// Fingerprint is the SHA-256 of v's JSON, in hexadecimal.
func Fingerprint(v any) string {
	h := sha256.New()
	_ = json.NewEncoder(h).Encode(v) // plain data: it always encodes
	return hex.EncodeToString(h.Sum(nil))
}

// FileFingerprint is the SHA-256 of the file at path.
func FileFingerprint(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// UsersFingerprint is the fingerprint of users whatever their order: the
// Fingerprint of the list of them sorted by key (users is not changed),
// written user by user in planjson's form, so that it stays what earlier
// releases computed when the core changes.
func UsersFingerprint(users reconcile.Users) string {
	if users.Len() == 0 {
		return Fingerprint(nil)
	}
	order := make([]int32, users.Len())
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return cmp.Compare(users.Key(int(a)), users.Key(int(b))) })
	h := sha256.New()
	h.Write([]byte{'['})
	for n, i := range order {
		if n > 0 {
			h.Write([]byte{','})
		}
		u := users.At(int(i))
		b, _ := json.Marshal(planjson.UserOf(&u)) // plain data: it always encodes
		h.Write(b)
	}
	h.Write([]byte("]\n"))
	return hex.EncodeToString(h.Sum(nil))
}

// Write saves f to path atomically.
func (f *File) Write(path string) error {
	return atomicfile.Write(path, func(w io.Writer) error { return f.Encode(w) })
}

// Encode writes f as indented JSON.
func (f *File) Encode(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(f)
}

// Read loads the saved plan at path.
func Read(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f File
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: not a saved plan (orgsync plan --out writes them): %w", path, err)
	}
	if f.FormatVersion < 1 || f.FormatVersion > FormatVersion {
		return nil, fmt.Errorf("%s: a saved plan of format %d; this orgsync reads formats 1 to %d: make the plan again with this version", path, f.FormatVersion, FormatVersion)
	}
	for i := range f.Organizations {
		if o := &f.Organizations[i]; o.Plan != nil {
			o.Plan.Names = func(s reconcile.Setting) string { return o.Keys[s] }
		}
	}
	return &f, nil
}

// OrgNames are the names of the organizations the file holds plans of.
func (f *File) OrgNames() []string {
	names := make([]string, len(f.Organizations))
	for i, o := range f.Organizations {
		names[i] = o.Name
	}
	return names
}

// Org returns the saved plan of the organization named name.
func (f *File) Org(name string) (*Org, bool) {
	for i := range f.Organizations {
		if f.Organizations[i].Name == name {
			return &f.Organizations[i], true
		}
	}
	return nil, false
}

// Diff lists how fresh differs from saved, one line a change that only
// one of them has (applied or withheld); none when they plan the same. A
// change only in the saved plan that applied says was applied since
// (applied(key) returns when) is said to be so, not merely missing;
// applied may be nil.
func Diff(saved, fresh *reconcile.Plan, applied func(key string) (time.Time, bool)) []string {
	a, b := lines(saved), lines(fresh)
	var out []string
	for _, l := range missing(a, b) {
		if at, ok := appliedAt(applied, l); ok {
			out = append(out, fmt.Sprintf("already applied (%s): %s", at.UTC().Format(time.RFC3339), l.text))
			continue
		}
		out = append(out, "only in the saved plan: "+l.text)
	}
	for _, l := range missing(b, a) {
		out = append(out, "only in a fresh plan:  "+l.text)
	}
	return out
}

// appliedAt is when applied says l's change was applied.
func appliedAt(applied func(key string) (time.Time, bool), l line) (time.Time, bool) {
	if applied == nil || l.key == "" {
		return time.Time{}, false
	}
	return applied(l.key)
}

// line is a plan's change rendered, with the key of a change to send.
type line struct {
	text string
	key  string // empty for a withheld change or a missing group
}

// missing lists the lines of a that b lacks.
func missing(a, b []line) []line {
	in := make(map[string]bool, len(b))
	for _, l := range b {
		in[l.text] = true
	}
	var out []line
	for _, l := range a {
		if !in[l.text] {
			out = append(out, l)
		}
	}
	return out
}

// lines renders a plan's changes and withheld changes, sorted.
func lines(p *reconcile.Plan) []line {
	var out []line
	for i := range p.Changes {
		out = append(out, line{text: oneline.Change(&p.Changes[i]), key: p.Changes[i].Key()})
	}
	for i := range p.Withheld {
		out = append(out, line{text: "withheld " + oneline.Change(&p.Withheld[i])})
	}
	for _, g := range p.MissingGroups {
		out = append(out, line{text: "missing group " + g.Name})
	}
	slices.SortFunc(out, func(x, y line) int { return strings.Compare(x.text, y.text) })
	return slices.CompactFunc(out, func(x, y line) bool { return x.text == y.text })
}

// Age is how old the saved plan is at now.
func (f *File) Age(now time.Time) time.Duration { return now.Sub(f.Created) }
