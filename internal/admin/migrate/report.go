package migrate

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// Outcome is what became of one setting of the incumbent.
type Outcome string

// The outcomes, as the report names them.
const (
	// Translated: orgsync does the same from the keys named.
	Translated Outcome = "translated"
	// Differs: written, but orgsync behaves differently in the way the
	// note says.
	Differs Outcome = "differs"
	// NoEquivalent: orgsync has nothing that does it; the note says what
	// comes closest.
	NoEquivalent Outcome = "no equivalent"
	// NotUsed: the incumbent itself does not use the setting with this
	// configuration (a connector that is not selected, a default that
	// changes nothing).
	NotUsed Outcome = "not used by the incumbent"
	// Unknown: not a setting of the incumbent migrate knows; it is not
	// translated, and the incumbent refuses such a file.
	Unknown Outcome = "unknown setting"
)

// Risk says why a difference must be accepted before the migrated
// configuration is used: "" for a difference that only makes orgsync do
// less than the incumbent, or stop where it goes on.
type Risk string

// The risks, as the report names them.
const (
	Safe Risk = ""
	// RemovesProtection: orgsync may change users the incumbent leaves
	// alone.
	RemovesProtection Risk = "removes a protection"
	// AppliesMore: orgsync may apply changes the incumbent would not.
	AppliesMore Risk = "applies changes the incumbent would not"
	// Refused: the incumbent refuses the file as it is, so it applies
	// nothing at all; what migrate wrote for it is a guess.
	Refused Risk = "the incumbent refuses it"
)

// Entry is the report's line for one setting (or one group of settings,
// such as a list of mapping rules) of the incumbent.
type Entry struct {
	Where   string   // "connector-ldap.yml:12 host", or "command line: --users mapped"
	Value   string   // the value as the report shows it (secrets: never)
	Outcome Outcome  // what became of it
	To      []string // the orgsync keys it became
	Note    string   // why, what differs, what comes closest
	// Risk, when set, makes the entry a difference to accept before the
	// configuration is used.
	Risk Risk
}

// Report accounts for every setting of the incumbent's files and says
// what the migration could not do.
type Report struct {
	Main    string   // the main file, as given
	Assumed []string // how the incumbent runs: the invocation options in force and where each comes from
	Entries []Entry
	// Differences are the deliberate differences of behaviour that
	// concern this configuration as a whole.
	Differences []string
	// Hook is the extension's after_mapping_hook, quoted, with what
	// migrate made of it ("" without an extension).
	Hook *HookReport
	// Secrets say where each secret of the incumbent went and how to
	// provide it.
	Secrets []string
	// FillIn are the values to fill in before the first run.
	FillIn []string
	// Check is the result of checking the migrated configuration.
	Check *Check
	// Live are the counts on the live plan (CountOnLivePlan), when it was
	// made.
	Live []string
	// Accepted is set when the differences to accept were accepted
	// (--accept-differences): the configuration's header lists them.
	Accepted bool
}

// Blocking returns the entries that must be accepted before the migrated
// configuration is used.
func (r *Report) Blocking() []Entry {
	var out []Entry
	for _, e := range r.Entries {
		if e.Risk != Safe {
			out = append(out, e)
		}
	}
	return out
}

// Blocked reports whether migrate must exit non-zero for the differences:
// some must be accepted and were not.
func (r *Report) Blocked() bool { return !r.Accepted && len(r.Blocking()) > 0 }

// added are the entries one call appended, so that a risk can be set on
// them.
type added struct {
	r        *Report
	from, to int
}

// risk marks the entries as a difference to accept, for the reason k:
// the first of them, which the others name ("with ...").
func (a added) risk(k Risk) {
	if a.from < a.to {
		a.r.Entries[a.from].Risk = k
	}
}

// riskIf is risk when cond holds.
func (a added) riskIf(cond bool, k Risk) {
	if cond {
		a.risk(k)
	}
}

// HookReport is what migrate made of an after_mapping_hook.
type HookReport struct {
	Where     string   // the file and line of the hook
	Code      string   // the hook as written
	Proposals []string // the CEL expressions proposed (key: expression)
	Applied   bool     // the proposals are in force in the migrated configuration
	Left      []string // statements no proposal covers, each with why
}

// add appends an entry for each of the settings ss, translated together
// (the entries after the first say so): every one is accounted for, each
// with its line.
func (r *Report) add(o Outcome, to []string, note string, ss ...*setting) added {
	ss = slices.DeleteFunc(slices.Clone(ss), func(s *setting) bool { return s == nil })
	a := added{r: r, from: len(r.Entries)}
	for i, s := range ss {
		s.done = true
		value := display(s)
		if o == Unknown && s.leaf && !s.isNull() {
			value = "(not shown: a key migrate does not know may hold a secret)"
		}
		n := note
		if i > 0 && note != "" {
			n = "with " + ss[0].where() + ": " + note
		} else if i > 0 {
			n = "with " + ss[0].where()
		}
		e := Entry{Where: s.where(), Value: value, Outcome: o, To: to, Note: n}
		if o == Unknown {
			e.Risk = Refused
		}
		r.Entries = append(r.Entries, e)
	}
	a.to = len(r.Entries)
	return a
}

// refused appends an entry, to accept, for what the incumbent refuses
// that is no single setting (a key the file lacks, options that do not
// go together): where names it.
func (r *Report) refused(where, note string) {
	r.Entries = append(r.Entries, Entry{Where: where, Value: "(the incumbent refuses it)", Outcome: NoEquivalent, Note: note, Risk: Refused})
}

// addFlag appends an entry for an invocation option given on the
// incumbent's command line.
func (r *Report) addFlag(flag string, o Outcome, to []string, note string) added {
	r.Entries = append(r.Entries, Entry{Where: "command line: " + flag, Outcome: o, To: to, Note: note})
	return added{r: r, from: len(r.Entries) - 1, to: len(r.Entries)}
}

// secretKey matches the keys whose values may be secrets (the
// incumbent's client_secret, password, api_token, priv_key_data,
// priv_key_pass, and any misspelling of them): the report never shows
// them. The keyring keys (secure_…_key) name an entry, not a secret.
var secretKey = regexp.MustCompile(`(?i)secret|passw|token|priv_key|hash|credential`)

func isSecretKey(key string) bool {
	return secretKey.MatchString(key) && !strings.HasPrefix(key, "secure_") && !strings.HasSuffix(key, "_path")
}

// display is how the report shows a setting's value: secrets never, a
// block as its number of keys or items, a long text by its first line.
func display(s *setting) string {
	last := s.canon[strings.LastIndex(s.canon, ".")+1:]
	switch {
	case isSecretKey(last) && !s.isNull():
		return "(a secret: not shown)"
	case s.isNull():
		return "(empty)"
	case !s.leaf && s.node.Kind == yaml.MappingNode:
		return fmt.Sprintf("(%d keys)", len(s.node.Content)/2)
	case !s.leaf:
		return fmt.Sprintf("(%d items)", len(s.node.Content))
	}
	vals := s.strings()
	text := strings.Join(vals, ", ")
	if s.node.Kind == yaml.SequenceNode {
		text = "[" + text + "]"
	}
	if i := strings.IndexByte(text, '\n'); i >= 0 {
		text = text[:i] + " …"
	}
	return text
}

// WriteText writes the report for a person to read.
func (r *Report) WriteText(w io.Writer) {
	fmt.Fprintf(w, "Migration report for %s\n", r.Main)
	section(w, "How the incumbent runs (the invocation options in force)", r.Assumed)
	fmt.Fprintf(w, "\n== Every setting, and what became of it (%s)\n", r.counts())
	for _, e := range r.Entries {
		fmt.Fprintf(w, "%s: %s\n", e.Where, e.Value)
		to := ""
		if len(e.To) > 0 {
			to = " -> " + strings.Join(e.To, ", ")
		}
		fmt.Fprintf(w, "    %s%s\n", e.Outcome, to)
		if e.Note != "" {
			fmt.Fprintf(w, "    %s\n", e.Note)
		}
		if e.Risk != Safe {
			fmt.Fprintf(w, "    ! to accept: %s\n", e.Risk)
		}
	}
	section(w, "Where orgsync deliberately behaves differently", r.Differences)
	r.writeBlocking(w)
	section(w, "Counted on the live plan (--check-target)", r.Live)
	r.writeHook(w)
	section(w, "Secrets (none was copied into the configuration)", r.Secrets)
	section(w, "To fill in before the first run", r.FillIn)
	if r.Check != nil {
		r.Check.writeText(w)
	}
}

// counts summarizes the entries by outcome: "42 settings: 30 translated, …".
func (r *Report) counts() string {
	n := map[Outcome]int{}
	for _, e := range r.Entries {
		n[e.Outcome]++
	}
	parts := []string{fmt.Sprintf("%d settings", len(r.Entries))}
	for _, o := range []Outcome{Translated, Differs, NoEquivalent, NotUsed, Unknown} {
		if n[o] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[o], o))
		}
	}
	return strings.Join(parts, ", ")
}

// writeBlocking writes the differences to accept, and whether they were.
func (r *Report) writeBlocking(w io.Writer) {
	b := r.Blocking()
	if len(b) == 0 {
		return
	}
	if r.Accepted {
		fmt.Fprintf(w, "\n== %d difference(s) accepted with --accept-differences (listed at the top of the configuration)\n", len(b))
	} else {
		fmt.Fprintf(w, "\n== %d difference(s) to accept before use: migrate exits 1 until they are accepted\n", len(b))
		fmt.Fprintln(w, "Each removes a protection of the incumbent's, applies changes the incumbent would not, or stands for a file the incumbent refuses. Fix them in the incumbent's files or in the configuration, or read each and run migrate again with --accept-differences.")
	}
	for _, e := range b {
		fmt.Fprintf(w, "- %s: %s, %s\n", e.Where, e.Outcome, e.Risk)
	}
}

// section writes a titled list (nothing when it is empty).
func section(w io.Writer, title string, lines []string) {
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(w, "\n== %s\n", title)
	for _, l := range lines {
		fmt.Fprintf(w, "- %s\n", l)
	}
}

// writeHook writes the hook section.
func (r *Report) writeHook(w io.Writer) {
	h := r.Hook
	if h == nil {
		return
	}
	fmt.Fprintf(w, "\n== The extension's after_mapping_hook (%s)\n", h.Where)
	fmt.Fprintln(w, "orgsync runs no Python; the hook, as written:")
	for _, l := range strings.Split(strings.TrimRight(h.Code, "\n"), "\n") {
		fmt.Fprintf(w, "    | %s\n", l)
	}
	switch {
	case len(h.Proposals) == 0:
		fmt.Fprintln(w, "No statement of it matches a pattern migrate knows: write its logic as expressions (docs/sources.md, Expressions).")
	case h.Applied:
		fmt.Fprintln(w, "Every statement is covered; these expressions are in the migrated configuration (check them):")
	default:
		fmt.Fprintln(w, "Some statements are covered; these expressions are proposed, commented out, in the migrated configuration:")
	}
	for _, p := range h.Proposals {
		fmt.Fprintf(w, "    %s\n", p)
	}
	for _, l := range h.Left {
		fmt.Fprintf(w, "  not covered: %s\n", l)
	}
}
