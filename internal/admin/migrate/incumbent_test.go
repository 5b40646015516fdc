package migrate

// A model of the incumbent tool's documented behaviour, for the
// equivalence tests: for its configuration and a directory (a CSV file or
// an LDAP server), the users it wants in each organization with their
// identity type, names, country and groups. It is written from the
// incumbent's documentation (and, where that is vague, from how its code
// reads the keys) and reads the incumbent's YAML on its own, apart from
// migrate: what it computes is what migrate's translation is held to.

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	ldap3 "github.com/go-ldap/ldap/v3"
	"gopkg.in/yaml.v3"
)

// wantUser is one user as both tools' desired state is compared: the
// identity (lower case), the names, the country ("" for undefined) and
// the groups (lower case, sorted).
type wantUser struct {
	Type, Email, Username, Domain, First, Last, Country string
	Groups                                              []string
}

func (u wantUser) String() string {
	return fmt.Sprintf("%s %s/%s@%s %q %q %s %v", u.Type, u.Email, u.Username, u.Domain, u.First, u.Last, u.Country, u.Groups)
}

// desiredState is each organization's users ("" the primary; secondary
// organizations by their name), by user key.
type desiredState map[string]map[string]wantUser

// dirUser is a user as the incumbent's directory connectors make it.
type dirUser struct {
	typ, email, username, domain, first, last, country string
	groups                                             []string // the mapped directory groups the user is in
	memberGroups                                       []string // the groups additional_groups rules see
	attrs                                              map[string]string
}

// incumbent is one configuration of the incumbent, read.
type incumbent struct {
	t       *testing.T
	dir     string
	main    map[string]any
	conn    map[string]any // the options of the connector it runs with
	kind    string         // ldap or csv
	csvFile string
	opts    map[string][]string
	// mapping is directory group -> qualified target groups; additional
	// the additional group rules; known the groups it knows.
	mapping    map[string][]string
	mapOrder   []string
	additional []struct{ source, target string }
	known      map[string]bool
	hook       func(u *dirUser, groups map[string]bool)
}

// readIncumbent reads the incumbent's main file at path and the files it
// names, with the command-line flags over its invocation_defaults.
func readIncumbent(t *testing.T, path string, flags []string) *incumbent {
	t.Helper()
	in := &incumbent{t: t, dir: filepath.Dir(path), main: yamlMap(t, path), mapping: map[string][]string{}, known: map[string]bool{}}
	in.options(flags)
	du := sub(in.main, "directory_users")
	in.kind = first(in.opts["connector"])
	if u := in.opts["users"]; first(u) == "file" {
		in.kind, in.csvFile = "csv", u[1]
	} else if in.kind == "csv" {
		in.csvFile = in.opts["connector"][1]
	}
	in.conn = map[string]any{}
	if names := asStrings(sub(du, "connectors")[in.kind]); len(names) > 0 {
		for _, n := range names {
			for k, v := range yamlMap(t, filepath.Join(in.dir, n)) {
				in.conn[k] = v
			}
		}
	}
	for _, item := range asList(du["groups"]) {
		m := item.(map[string]any)
		g := fmt.Sprint(m["directory_group"])
		if _, ok := in.mapping[g]; !ok {
			in.mapOrder = append(in.mapOrder, g)
		}
		for _, target := range asStrings(firstOf(m, "adobe_groups", "vendor_groups")) {
			in.mapping[g] = append(in.mapping[g], target)
			in.known[target] = true
		}
		if in.mapping[g] == nil {
			in.mapping[g] = []string{}
		}
	}
	for _, item := range asList(du["additional_groups"]) {
		m := item.(map[string]any)
		in.additional = append(in.additional, struct{ source, target string }{fmt.Sprint(m["source"]), fmt.Sprint(m["target"])})
	}
	for _, g := range asStrings(firstOf(sub(in.main, "adobe_users"), "exclude_adobe_groups", "exclude_vendor_groups")) {
		in.known[g] = true
	}
	if ext := asStrings(du["extension"]); len(ext) > 0 {
		e := yamlMap(t, filepath.Join(in.dir, ext[0]))
		for _, g := range asStrings(firstOf(e, "extended_adobe_groups", "extended_vendor_groups")) {
			in.known[g] = true
		}
		in.hook = hookModels[strings.TrimSpace(fmt.Sprint(e["after_mapping_hook"]))]
		if in.hook == nil {
			t.Fatalf("the model has no Python semantics for the hook of %s", ext[0])
		}
	}
	return in
}

// options resolves the invocation options: defaults, invocation_defaults,
// then the command line.
func (in *incumbent) options(flags []string) {
	in.opts = map[string][]string{"adobe_only_user_action": {"preserve"}, "connector": {"ldap"}, "users": {"all"},
		"process_groups": {"false"}, "exclude_unmapped_users": {"false"}, "user_filter": nil}
	for k, v := range sub(in.main, "invocation_defaults") {
		s := asStrings(v)
		switch {
		case len(s) == 0 || s[0] == "":
		case k == "process_groups" || k == "exclude_unmapped_users" || k == "update_user_info" || k == "test_mode":
			// YAML 1.1, as the incumbent reads it: Yes and No are booleans
			in.opts[k] = []string{fmt.Sprint(slices.Contains([]string{"true", "yes", "on", "y"}, strings.ToLower(s[0])))}
		default:
			in.opts[k] = s
		}
	}
	for i := 0; i < len(flags); i++ {
		f := strings.TrimPrefix(flags[i], "--")
		switch f {
		case "process-groups", "exclude-unmapped-users":
			in.opts[strings.ReplaceAll(f, "-", "_")] = []string{"true"}
		case "no-process-groups":
			in.opts["process_groups"] = []string{"false"}
		default:
			var vals []string
			for i+1 < len(flags) && !strings.HasPrefix(flags[i+1], "-") {
				i++
				vals = append(vals, flags[i])
			}
			in.opts[strings.ReplaceAll(f, "-", "_")] = vals
		}
	}
}

// desired is what the incumbent wants in each organization, reading users
// from the directory (LDAP through conn, when it is the LDAP connector).
func (in *incumbent) desired(conn *ldap3.Conn) desiredState {
	processGroups := first(in.opts["process_groups"]) == "true"
	var filter []string // the directory groups selected users must be in
	switch first(in.opts["users"]) {
	case "mapped":
		filter = in.mapOrder
	case "group":
		filter = strings.Split(in.opts["users"][1], ",")
	}
	var groups []string
	if processGroups {
		groups = append(groups, in.mapOrder...)
	}
	for _, g := range filter {
		if !slices.Contains(groups, g) {
			groups = append(groups, g)
		}
	}
	var users []*dirUser
	if in.kind == "csv" {
		users = in.csvUsers()
	} else {
		users = in.ldapUsers(conn, groups, filter == nil)
	}
	var userFilter *regexp.Regexp
	if f := first(in.opts["user_filter"]); f != "" {
		userFilter = regexp.MustCompile(`(?i)^(?:` + f + `)$`)
	}
	out := desiredState{"": {}}
	for _, u := range users {
		if filter != nil && !intersects(u.groups, filter) {
			continue
		}
		if userFilter != nil && !userFilter.MatchString(strings.ToLower(firstNonEmpty(u.username, u.email))) {
			continue
		}
		in.place(out, u, processGroups)
	}
	if first(in.opts["exclude_unmapped_users"]) == "true" {
		for k, u := range out[""] {
			if len(u.Groups) == 0 {
				delete(out[""], k)
			}
		}
	}
	return out
}

// place adds u to the organizations it belongs in: the primary always,
// a secondary when it has a group there.
func (in *incumbent) place(out desiredState, u *dirUser, processGroups bool) {
	target := map[string]bool{}
	for _, g := range u.groups {
		for _, t := range in.mapping[g] {
			target[t] = true
		}
	}
	if in.hook != nil {
		in.hook(u, target)
	}
	byOrg := map[string][]string{}
	for t := range target {
		if !in.known[t] {
			continue // the incumbent ignores a group it does not know
		}
		org, g := splitQualified(t)
		byOrg[org] = append(byOrg[org], strings.ToLower(g))
	}
	for _, mg := range u.memberGroups {
		for _, r := range in.additional {
			if !regexp.MustCompile(`^(?:` + r.source + `)`).MatchString(mg) {
				continue
			}
			org, tmpl := splitQualified(r.target)
			byOrg[org] = append(byOrg[org], strings.ToLower(pySub(r.source, tmpl, mg)))
		}
	}
	if !processGroups {
		byOrg = map[string][]string{}
	}
	c := u.country
	if c == "" {
		c = strings.ToUpper(fmt.Sprint(orDefault(sub(in.main, "directory_users")["default_country_code"], "")))
	}
	if c == "UD" {
		c = ""
	}
	if c == "" && u.typ == "federatedID" {
		return // the incumbent cannot create it (a Federated ID needs a country)
	}
	for org, gs := range byOrg {
		if _, ok := out[org]; !ok {
			out[org] = map[string]wantUser{}
		}
		_ = gs
	}
	for org := range out {
		gs := dedupe(byOrg[org])
		if org != "" && len(gs) == 0 {
			continue
		}
		w := wantUser{Type: u.typ, Email: strings.ToLower(u.email), Username: strings.ToLower(firstNonEmpty(u.username, u.email)), First: u.first, Last: u.last, Country: c, Groups: gs}
		if !strings.Contains(w.Username, "@") {
			w.Domain = strings.ToLower(u.domain)
		}
		if w.Type == "adobeID" {
			w.Type = "vendorID"
		}
		out[org][w.Email+"|"+w.Username] = w
	}
}

// pySub is Python's re.sub(source, target, s) for the rules of the tests:
// every non-overlapping match of source is replaced by target, whose \N
// name the match's groups.
func pySub(source, target, s string) string {
	re := regexp.MustCompile(source)
	return re.ReplaceAllStringFunc(s, func(match string) string {
		g := re.FindStringSubmatch(match)
		return regexp.MustCompile(`\\(\d)`).ReplaceAllStringFunc(target, func(ref string) string {
			return g[ref[1]-'0']
		})
	})
}

// csvUsers reads the CSV file as the incumbent's CSV connector does.
func (in *incumbent) csvUsers() []*dirUser {
	path := filepath.Join(in.dir, in.csvFile)
	f, err := os.Open(path)
	if err != nil {
		in.t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comma, r.FieldsPerRecord = ',', -1 // Python's DictReader: a short row's missing fields are None
	if d := fmt.Sprint(orDefault(in.conn["delimiter"], "")); d != "" {
		r.Comma = []rune(d)[0]
	} else if !strings.HasSuffix(path, ".csv") {
		r.Comma = '\t'
	}
	rows, err := r.ReadAll()
	if err != nil {
		in.t.Fatal(err)
	}
	col := func(key, def string) string { return fmt.Sprint(orDefault(in.conn[key], def)) }
	byEmail := map[string]*dirUser{}
	var out []*dirUser
	for _, row := range rows[1:] {
		get := func(name string) string {
			for i, h := range rows[0] {
				if h == name && i < len(row) {
					return row[i]
				}
			}
			return ""
		}
		email := get(col("email_column_name", "email"))
		if !strings.Contains(email, "@") {
			continue
		}
		u := byEmail[email]
		if u == nil {
			u = &dirUser{email: email, attrs: map[string]string{}}
			byEmail[email] = u
			out = append(out, u)
		}
		u.first, u.last = get(col("first_name_column_name", "firstname")), get(col("last_name_column_name", "lastname"))
		u.country = strings.ToUpper(get(col("country_column_name", "country")))
		if g := get(col("groups_column_name", "groups")); g != "" {
			u.groups = append(u.groups, strings.Split(g, ",")...)
			u.memberGroups = u.groups
		}
		u.username = firstNonEmpty(get(col("username_column_name", "username")), email)
		u.typ = in.identityType(get(col("identity_type_column_name", "type")))
		u.domain = get(col("domain_column_name", "domain"))
		if u.domain == "" && u.username != email {
			u.domain = email[strings.Index(email, "@")+1:]
		}
		for _, h := range rows[0] {
			u.attrs[h] = get(h)
		}
	}
	return out
}

// identityType is a user's type: its own, else the connector's, else the
// main file's user_identity_type, else enterpriseID.
func (in *incumbent) identityType(own string) string {
	t := firstNonEmpty(own, fmt.Sprint(orDefault(in.conn["user_identity_type"], "")),
		fmt.Sprint(orDefault(sub(in.main, "directory_users")["user_identity_type"], "")), "enterpriseID")
	for _, name := range []string{"adobeID", "enterpriseID", "federatedID"} {
		if strings.EqualFold(t, name) {
			return name
		}
	}
	return "invalid:" + t
}

// ldapUsers reads the users as the incumbent's LDAP connector does: for
// each group, its DN by group_filter_format, then its members by
// group_member_filter_format (or the two-step lookup), and with all the
// users of all_users_filter.
func (in *incumbent) ldapUsers(conn *ldap3.Conn, groups []string, all bool) []*dirUser {
	opt := func(k, def string) string { return fmt.Sprint(orDefault(in.conn[k], def)) }
	base := opt("base_dn", "")
	usersFilter := opt("all_users_filter", ustUserFilter)
	byDN := map[string]*dirUser{}
	var order []string
	read := func(base, filter string, scope int) []*dirUser {
		attrs := []string{"*", "memberOf"}
		res, err := conn.SearchWithPaging(ldap3.NewSearchRequest(base, scope, ldap3.NeverDerefAliases, 0, 0, false, filter, attrs, nil), 100)
		if err != nil {
			if ldap3.IsErrorWithCode(err, ldap3.LDAPResultNoSuchObject) {
				return nil
			}
			in.t.Fatal(err)
		}
		var out []*dirUser
		for _, e := range res.Entries {
			u, ok := byDN[strings.ToLower(e.DN)]
			if !ok {
				if u = in.ldapUser(e); u == nil {
					continue
				}
				byDN[strings.ToLower(e.DN)] = u
				order = append(order, strings.ToLower(e.DN))
			}
			out = append(out, u)
		}
		return out
	}
	two := sub(in.conn, "two_steps_lookup")
	memberFormat := opt("group_member_filter_format", ustMemberOf)
	for _, g := range groups {
		dn := in.groupDN(conn, base, g)
		if dn == "" {
			continue
		}
		var members []*dirUser
		if two != nil {
			for _, m := range in.memberDNs(conn, dn, fmt.Sprint(two["group_member_attribute_name"]), two["nested_group"] == true, map[string]bool{}) {
				members = append(members, read(m, usersFilter, ldap3.ScopeWholeSubtree)...)
			}
		} else {
			f := strings.ReplaceAll(memberFormat, "{group_dn}", ldap3.EscapeFilter(dn))
			members = read(base, "(&"+f+usersFilter+")", ldap3.ScopeWholeSubtree)
		}
		for _, u := range members {
			if !slices.Contains(u.groups, g) {
				u.groups = append(u.groups, g)
			}
		}
	}
	if all {
		read(base, usersFilter, ldap3.ScopeWholeSubtree)
	}
	out := make([]*dirUser, len(order))
	for i, dn := range order {
		out[i] = byDN[dn]
	}
	return out
}

// groupDN finds a group by group_filter_format.
func (in *incumbent) groupDN(conn *ldap3.Conn, base, name string) string {
	format := fmt.Sprint(orDefault(in.conn["group_filter_format"], ustGroupFormat))
	f := strings.ReplaceAll(format, "{group}", ldap3.EscapeFilter(name))
	res, err := conn.Search(ldap3.NewSearchRequest(base, ldap3.ScopeWholeSubtree, ldap3.NeverDerefAliases, 0, 0, false, f, []string{"dn"}, nil))
	if err != nil {
		in.t.Fatal(err)
	}
	if len(res.Entries) != 1 {
		return ""
	}
	return res.Entries[0].DN
}

// memberDNs lists the values of a group's member attribute, recursing
// into nested groups when nested is set (the two-step lookup).
func (in *incumbent) memberDNs(conn *ldap3.Conn, dn, attr string, nested bool, seen map[string]bool) []string {
	res, err := conn.Search(ldap3.NewSearchRequest(dn, ldap3.ScopeBaseObject, ldap3.NeverDerefAliases, 0, 0, false, "(objectClass=*)", []string{attr}, nil))
	if err != nil || len(res.Entries) == 0 {
		return nil
	}
	var out []string
	for _, m := range res.Entries[0].GetAttributeValues(attr) {
		if seen[m] {
			continue
		}
		seen[m] = true
		if nested {
			out = append(out, in.memberDNs(conn, m, attr, nested, seen)...)
		}
		out = append(out, m)
	}
	return out
}

// ldapUser makes a user of an entry by the attribute formats.
func (in *incumbent) ldapUser(e *ldap3.Entry) *dirUser {
	format := func(key, def string) (string, bool) {
		f := fmt.Sprint(orDefault(in.conn[key], def))
		if f == "" {
			return "", false
		}
		missing := false
		v := regexp.MustCompile(`\{([^{}]+)\}`).ReplaceAllStringFunc(f, func(ref string) string {
			a := e.GetAttributeValue(ref[1 : len(ref)-1])
			missing = missing || a == ""
			return a
		})
		return v, !missing
	}
	email, ok := format("user_email_format", "{mail}")
	if !ok || email == "" {
		return nil
	}
	u := &dirUser{email: email, attrs: map[string]string{}}
	if t, ok := format("user_identity_type_format", ""); ok && t != "" {
		if u.typ = in.identityType(t); strings.HasPrefix(u.typ, "invalid:") {
			return nil
		}
	} else {
		u.typ = in.identityType("")
	}
	u.username, _ = format("user_username_format", "")
	if u.username == "" {
		u.username = email
	}
	if d, ok := format("user_domain_format", ""); ok {
		u.domain = d
	} else if u.username != email {
		u.domain = email[strings.Index(email, "@")+1:]
	}
	u.first, _ = format("user_given_name_format", "{givenName}")
	u.last, _ = format("user_surname_format", "{sn}")
	c, _ := format("user_country_code_format", "{c}")
	u.country = strings.ToUpper(c)
	if a := fmt.Sprint(orDefault(in.conn["dynamic_group_member_attribute"], "")); a != "" {
		for _, g := range e.GetAttributeValues(a) {
			if dn, err := ldap3.ParseDN(g); err == nil && len(dn.RDNs) > 0 {
				u.memberGroups = append(u.memberGroups, dn.RDNs[0].Attributes[0].Value)
			}
		}
	}
	for _, a := range e.Attributes {
		u.attrs[a.Name] = a.Values[0]
	}
	return u
}

// companyHook is the Python semantics of the published hook, over the
// attributes named bc and subco.
func companyHook(bc, subco string) func(u *dirUser, groups map[string]bool) {
	return func(u *dirUser, groups map[string]bool) {
		if v := u.attrs[bc]; v != "" {
			u.country = v[:min(2, len(v))]
		}
		switch u.attrs[subco] {
		case "Company 1":
			groups["Company 1 Users"] = true
		case "Company 2":
			groups["Company 2 Users"] = true
		}
	}
}

// hookModels are the Python semantics of the hooks the tests use, written
// by hand from their code.
var hookModels = map[string]func(u *dirUser, groups map[string]bool){
	// The published example's hook.
	`bc = source_attributes.get('bc')
subco = source_attributes.get('subco')
if bc is not None:
  target_attributes['country'] = bc[0:2]
if subco == 'Company 1':
  target_groups.add('Company 1 Users')
elif subco == 'Company 2':
  target_groups.add('Company 2 Users')`: companyHook("bc", "subco"),
	// The same over LDAP attributes (TestEquivalenceLDAPRealistic).
	`dept = source_attributes.get('departmentNumber')
company = source_attributes.get('o')
if dept is not None:
  target_attributes['country'] = dept[0:2]
if company == 'Company 1':
  target_groups.add('Company 1 Users')
elif company == 'Company 2':
  target_groups.add('Company 2 Users')`: companyHook("departmentNumber", "o"),
}

// Helpers reading the incumbent's YAML as plain values.

func yamlMap(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := yaml.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if m == nil {
		m = map[string]any{}
	}
	return m
}

func sub(m map[string]any, key string) map[string]any {
	v, _ := m[key].(map[string]any)
	return v
}

func firstOf(m map[string]any, keys ...string) any {
	for _, k := range keys {
		if v, ok := m[k]; ok {
			return v
		}
	}
	return nil
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func asStrings(v any) []string {
	switch v := v.(type) {
	case nil:
		return nil
	case []any:
		var out []string
		for _, x := range v {
			if x != nil {
				out = append(out, fmt.Sprint(x))
			}
		}
		return out
	}
	return []string{fmt.Sprint(v)}
}

func orDefault(v any, def string) any {
	if v == nil {
		return def
	}
	return v
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return strings.ToLower(s[0])
}

func intersects(a, b []string) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}

func splitQualified(name string) (org, group string) {
	if o, g, ok := strings.Cut(name, "::"); ok {
		return o, g
	}
	return "", name
}

func dedupe(gs []string) []string {
	sort.Strings(gs)
	return slices.Compact(gs)
}
