package migrate

import (
	"fmt"
	"strings"
)

// invocationOptions are the incumbent's invocation options: its
// invocation_defaults keys, their defaults and their command-line
// spellings (a boolean's as "--on/--off").
var invocationOptions = []struct {
	name    string
	def     []string
	boolean bool
	flags   []string
}{
	{"adobe_only_user_action", []string{"preserve"}, false, []string{"--adobe-only-user-action", "--vendor-only-user-action"}},
	{"adobe_only_user_list", nil, false, []string{"--adobe-only-user-list", "--vendor-only-user-list"}},
	{"adobe_users", []string{"all"}, false, []string{"--adobe-users", "--vendor-users"}},
	{"connector", []string{"ldap"}, false, []string{"--connector"}},
	{"exclude_unmapped_users", []string{"false"}, true, []string{"--exclude-unmapped-users/--include-unmapped-users"}},
	{"process_groups", []string{"false"}, true, []string{"--process-groups/--no-process-groups"}},
	{"strategy", []string{"sync"}, false, []string{"--strategy"}},
	{"test_mode", []string{"false"}, true, []string{"--test-mode/--no-test-mode", "-t/-T"}},
	{"update_user_info", []string{"false"}, true, []string{"--update-user-info/--no-update-user-info"}},
	{"user_filter", nil, false, []string{"--user-filter"}},
	{"users", []string{"all"}, false, []string{"--users"}},
}

// ignoredFlags are command-line options that choose how the incumbent
// reads its configuration: migrate reads the file it is given.
var ignoredFlags = map[string]string{
	"-c": "the main file is the one given to orgsync migrate", "--config-filename": "the main file is the one given to orgsync migrate",
	"--config-file-encoding": "orgsync reads its configuration as UTF-8: save the incumbent's files as UTF-8 before migrating them if they are not",
}

// option is one invocation option in force: its value and where it comes
// from.
type option struct {
	name   string
	values []string // a boolean's is "true" or "false"
	flag   string   // the command-line text that set it, if any
	set    *setting // the main file's invocation_defaults setting, if any
}

// from says where the option's value comes from, for the report.
func (o *option) from() string {
	switch {
	case o.flag != "":
		return "command line: " + o.flag
	case o.set != nil:
		return o.set.file.name + ":" + fmt.Sprint(o.set.line) + " " + o.set.path
	}
	return "the incumbent's default"
}

func (o *option) on() bool { return len(o.values) > 0 && o.values[0] == "true" }

func (o *option) first() string {
	if len(o.values) == 0 {
		return ""
	}
	return strings.ToLower(strings.TrimSpace(o.values[0]))
}

// arg is the option's second value (a file or a list of groups).
func (o *option) arg() string {
	if len(o.values) < 2 {
		return ""
	}
	return o.values[1]
}

// invocation is how the incumbent runs: its invocation options, and what
// it derives from them.
type invocation struct {
	opts map[string]*option
	// connector is the directory connector used (ldap, okta, csv,
	// adobe_console); csvFile the CSV file of --connector csv FILE or
	// --users file FILE.
	connector, csvFile string
	// action is what happens to users only in the organization (preserve,
	// exclude, write-file, remove-adobe-groups, remove, delete; "" with
	// the push strategy), writeFile the file of write-file.
	action, writeFile string
	// users is all, mapped, group or file ("" with adobe_only_user_list),
	// usersGroups the groups of group.
	users       string
	usersGroups []string
	// adobeUsers is all, mapped or group; adobeGroups the groups of group.
	adobeUsers  string
	adobeGroups []string
	// problems are what the incumbent itself refuses in these options.
	problems []string
}

func (inv *invocation) opt(name string) *option { return inv.opts[name] }

// invocation reads the options in force: the incumbent's defaults, the
// main file's invocation_defaults over them and the command line's flags
// over those, as the incumbent does.
func (m *migration) invocation(flags []string) (*invocation, error) {
	inv := &invocation{opts: map[string]*option{}}
	for _, o := range invocationOptions {
		opt := &option{name: o.name, values: o.def}
		if s := m.main.get("invocation_defaults." + o.name); s != nil {
			opt.set = s
			if v := fileValue(s, o.boolean); v != nil {
				opt.values = v
			}
		}
		inv.opts[o.name] = opt
	}
	if err := m.parseFlags(inv, flags); err != nil {
		return nil, err
	}
	inv.derive()
	for _, o := range invocationOptions {
		opt := inv.opts[o.name]
		m.rep.Assumed = append(m.rep.Assumed, fmt.Sprintf("%s: %s (%s)", o.name, strings.Join(opt.values, " "), opt.from()))
	}
	for _, p := range inv.problems {
		m.rep.refused("the invocation options", p+": the incumbent refuses these options and runs not at all; migrate assumed what the report's first section says")
	}
	return inv, nil
}

// fileValue is an invocation_defaults setting's value as the incumbent
// reads it: a boolean for a boolean option, else a list (a single value
// is a list of one); nil when it keeps the default (empty).
func fileValue(s *setting, boolean bool) []string {
	if boolean {
		if b, ok := s.boolean(); ok {
			return []string{fmt.Sprint(b)}
		}
		return nil
	}
	v := s.strings()
	if len(v) == 0 || v[0] == "" {
		return nil
	}
	return v
}

// parseFlags reads the incumbent's command line into inv: an option's
// values are the words up to the next flag (write-file FILE, group G1,G2).
// A leading program name (user-sync) and the sync command are skipped.
func (m *migration) parseFlags(inv *invocation, args []string) error {
	i := 0
	for i < len(args) && !strings.HasPrefix(args[i], "-") {
		if w := strings.ToLower(args[i]); !strings.Contains(w, "user-sync") && !strings.Contains(w, "user_sync") && w != "sync" {
			return fmt.Errorf("--flags: %q is not an option of the incumbent's command line (write its options, e.g. --process-groups --users mapped)", args[i])
		}
		i++
	}
	for i < len(args) {
		flag, inline, hasInline := strings.Cut(args[i], "=")
		i++
		var values []string
		if hasInline {
			values = append(values, inline)
		}
		for i < len(args) && !strings.HasPrefix(args[i], "-") {
			values = append(values, args[i])
			i++
		}
		if why, ok := ignoredFlags[flag]; ok {
			m.rep.Assumed = append(m.rep.Assumed, fmt.Sprintf("command line %s %s: not used: %s", flag, strings.Join(values, " "), why))
			continue
		}
		if err := setFlag(inv, flag, values); err != nil {
			return err
		}
	}
	return nil
}

// setFlag sets the option a command-line flag names.
func setFlag(inv *invocation, flag string, values []string) error {
	text := strings.TrimSpace(flag + " " + strings.Join(values, " "))
	for _, o := range invocationOptions {
		for _, spelling := range o.flags {
			on, off, _ := strings.Cut(spelling, "/")
			opt := inv.opts[o.name]
			switch {
			case o.boolean && (flag == on || flag == off):
				if len(values) > 0 {
					return fmt.Errorf("--flags: %s takes no value (%q)", flag, strings.Join(values, " "))
				}
				opt.values, opt.flag = []string{fmt.Sprint(flag == on)}, text
				return nil
			case !o.boolean && flag == on:
				if len(values) == 0 {
					return fmt.Errorf("--flags: %s needs a value", flag)
				}
				opt.values, opt.flag = values, text
				return nil
			}
		}
	}
	return fmt.Errorf("--flags: %s is not an option of the incumbent's sync command (known: %s)", flag, knownFlags())
}

// knownFlags lists the command-line options migrate reads.
func knownFlags() string {
	var out []string
	for _, o := range invocationOptions {
		out = append(out, o.flags[0])
	}
	return strings.Join(out, ", ")
}

// derive works out, as the incumbent does, the connector, the action on
// users only in the organization, and the users selected, and notes what
// the incumbent would refuse.
func (inv *invocation) derive() {
	c := inv.opt("connector")
	switch inv.connector = strings.ReplaceAll(c.first(), "vendor_console", "adobe_console"); inv.connector {
	case "ldap", "okta", "adobe_console":
		if len(c.values) > 1 {
			inv.refuse("connector %s takes no file (%s)", inv.connector, c.from())
		}
	case "csv":
		if inv.csvFile = c.arg(); inv.csvFile == "" {
			inv.refuse("connector csv needs its file (%s)", c.from())
		}
	default:
		inv.refuse("%q is not a connector (%s)", c.first(), c.from())
	}
	inv.deriveAction()
	inv.deriveUsers()
	a := inv.opt("adobe_users")
	switch inv.adobeUsers = a.first(); inv.adobeUsers {
	case "all", "mapped":
	case "group":
		inv.adobeGroups = splitList(a.arg())
	default:
		inv.refuse("adobe_users %q is not all, mapped or group (%s)", a.first(), a.from())
		inv.adobeUsers = "all"
	}
}

// deriveAction works out the action on users only in the organization.
func (inv *invocation) deriveAction() {
	if inv.opt("strategy").first() == "push" {
		return // the incumbent ignores the action when it pushes
	}
	a := inv.opt("adobe_only_user_action")
	switch inv.action = strings.ReplaceAll(a.first(), "vendor", "adobe"); inv.action {
	case "preserve", "exclude", "remove", "delete", "remove-adobe-groups":
	case "write-file":
		if inv.writeFile = a.arg(); inv.writeFile == "" {
			inv.refuse("adobe_only_user_action write-file needs its file (%s)", a.from())
		}
	default:
		inv.refuse("%q is not an adobe_only_user_action (%s)", a.first(), a.from())
		inv.action = "preserve"
	}
}

// deriveUsers works out which directory users are selected.
func (inv *invocation) deriveUsers() {
	u := inv.opt("users")
	if inv.opt("adobe_only_user_list").first() != "" {
		if inv.opt("strategy").first() == "push" {
			inv.refuse("adobe_only_user_list with the push strategy")
		}
		return // the list replaces the directory: users is ignored
	}
	switch inv.users = u.first(); inv.users {
	case "all":
		if inv.connector == "okta" {
			inv.refuse("users all with the okta connector (%s): the incumbent's Okta connector reads the members of groups only", u.from())
		}
	case "mapped":
	case "group":
		if inv.usersGroups = splitList(u.arg()); len(inv.usersGroups) == 0 {
			inv.refuse("users group needs its groups (%s)", u.from())
		}
	case "file":
		if inv.connector == "csv" {
			inv.refuse("a file both with users and connector (%s)", u.from())
		}
		if u.arg() == "" {
			inv.refuse("users file needs its file (%s)", u.from())
		}
		inv.connector, inv.csvFile = "csv", u.arg()
	default:
		inv.refuse("users %q is not all, file, group or mapped (%s)", u.first(), u.from())
		inv.users = "all"
	}
}

func (inv *invocation) refuse(format string, args ...any) {
	inv.problems = append(inv.problems, fmt.Sprintf(format, args...))
}

// splitList splits a comma-separated list of groups.
func splitList(s string) []string {
	var out []string
	for _, g := range strings.Split(s, ",") {
		if g = strings.TrimSpace(g); g != "" {
			out = append(out, g)
		}
	}
	return out
}

// optionEntry reports what became of an invocation option (when a file
// setting or a flag set it: a default is no setting). A file setting that
// the command line overrides is reported as not used.
func (m *migration) optionEntry(name string, o Outcome, to []string, note string) added {
	opt := m.inv.opt(name)
	if opt.flag != "" {
		if opt.set != nil {
			m.rep.add(NotUsed, nil, "the command line's "+opt.flag+" wins over it", opt.set)
		}
		return m.rep.addFlag(opt.flag, o, to, note)
	}
	return m.rep.add(o, to, note, opt.set)
}
