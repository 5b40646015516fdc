package migrate

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/orgsync/orgsync/secret"
)

// The incumbent's defaults for its service connectors.
const (
	defaultHost     = "usermanagement.adobe.io"
	defaultEndpoint = "/v2/usermanagement"
	defaultAuthHost = "ims-na1.adobelogin.com"
	jwtEndpoint     = "/ims/exchange/jwt"
	oauthEndpoint   = "/ims/token/v2"
	// orgsyncOAuthEndpoint is where orgsync asks for a client-credentials
	// token (umwire.PathClientCredentials).
	orgsyncOAuthEndpoint = "/ims/token/v3"
)

// serviceTarget is one organization the incumbent syncs: the primary
// (name "") or a secondary, and its connector files.
type serviceTarget struct {
	name string // the incumbent's name; "" for the primary
	merged
}

// translateTargets translates adobe_users.connectors.umapi: the primary
// organization and the secondary ones, each from its connector files.
func (m *migration) translateTargets() {
	s := m.main.get("adobe_users.connectors.umapi")
	targets := m.serviceTargets(s)
	if len(targets) == 0 {
		m.rep.FillIn = append(m.rep.FillIn, "the main file names no service connector (adobe_users.connectors.umapi): fill in target: (orgId, baseURL, auth) by hand")
		m.root.set("target.orgId", "FILL IN", "the main file names no service connector")
		return
	}
	m.multi = len(targets) > 1
	if m.multi {
		m.rep.add(Differs, []string{"targets"}, "each connector file is one organization; each secondary organization gets a policy of its own (targets[i].policy) that keeps what the incumbent does there: it never touches a user of a secondary organization who is not in the primary (orgsync: unmatchedUsers preserve there) and updates attributes in the primary only (updateAttributes [] there). It differs in one way, which only makes orgsync do less: the incumbent also applies adobe_only_user_action in a secondary organization to the users it applies it to in the primary; orgsync leaves them alone there", append([]*setting{s}, m.main.under(s.canon)...)...)
	} else {
		m.rep.add(Translated, []string{m.targetsKey()}, "the connector file is the organization", append([]*setting{s}, m.main.under(s.canon)...)...)
	}
	if s := m.main.get("adobe_users.connectors"); s != nil {
		s.done = true
	}
	for i, t := range targets {
		at := "target"
		var n *node
		if m.multi {
			n = m.root.child("targets").item()
			name := m.orgsyncName(t.name)
			n.set("name", name, nameComment(t))
			at = fmt.Sprintf("targets[%d]", i)
			if t.name != "" {
				m.secondaries = append(m.secondaries, secondary{node: n, name: name})
			}
		} else {
			n = m.root.child("target")
			n.comment = "from " + t.merged[0].name + " (adobe_users.connectors.umapi)"
		}
		m.translateTarget(n, at, t)
	}
}

func nameComment(t serviceTarget) string {
	if t.name == "" {
		return "the primary organization, " + t.merged[0].name
	}
	return "the secondary organization " + t.name + " of adobe_users.connectors.umapi, " + t.merged[0].name
}

// targetsKey is the orgsync key the organizations go under.
func (m *migration) targetsKey() string {
	if m.multi {
		return "targets"
	}
	return "target"
}

// serviceTargets reads the service connectors s names: a file or a list
// of files for the primary, then {name: file} items for the secondaries.
func (m *migration) serviceTargets(s *setting) []serviceTarget {
	if s.isNull() {
		return nil
	}
	primary := serviceTarget{}
	var out []serviceTarget
	read := func(t *serviceTarget, at *setting, names []string) {
		for _, name := range names {
			f, err := m.readNamed(at, name)
			if err != nil {
				m.rep.FillIn = append(m.rep.FillIn, err.Error())
				continue
			}
			t.merged = append(t.merged, f)
		}
	}
	items := []*setting{s}
	if !s.leaf {
		items = m.main.under(s.canon)
	}
	for _, it := range items {
		switch {
		case it.leaf && strings.Count(it.canon, ".") == strings.Count(s.canon, "."): // the primary's file(s)
			read(&primary, it, it.strings())
		case it.leaf:
			name := it.path[strings.LastIndex(it.path, ".")+1:]
			t := serviceTarget{name: name}
			read(&t, it, it.strings())
			if len(t.merged) > 0 {
				out = append(out, t)
			}
		}
	}
	if len(primary.merged) == 0 {
		if len(out) > 0 {
			m.rep.FillIn = append(m.rep.FillIn, s.where()+": no primary organization (a file named without a name): the incumbent refuses this")
		}
		return out
	}
	return append([]serviceTarget{primary}, out...)
}

// orgNamePattern is what orgsync accepts as an organization's name.
var orgNamePattern = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// orgsyncName returns the orgsync name of the incumbent's organization
// name ("" for the primary): the same where orgsync accepts it.
func (m *migration) orgsyncName(name string) string {
	if name == "" {
		name = "main"
		for _, used := range m.targetNames {
			if used == "main" {
				name = "primary"
			}
		}
		return name
	}
	if n, ok := m.targetNames[name]; ok {
		return n
	}
	n := name
	if !orgNamePattern.MatchString(n) {
		n = regexp.MustCompile(`[^A-Za-z0-9._-]+`).ReplaceAllString(n, "-")
		m.rep.Differences = append(m.rep.Differences, fmt.Sprintf("the organization %q is named %q in orgsync (letters, digits, '.', '_' and '-' only); its groups are written %s::Group", name, n, n))
	}
	m.targetNames[name] = n
	return n
}

// translateTarget translates one service connector into n (target: or an
// item of targets:).
func (m *migration) translateTarget(n *node, at string, t serviceTarget) {
	for _, k := range []string{"orgId", "baseURL", "authBaseURL", "auth"} {
		n.child(k) // in this order
	}
	for _, k := range []string{"server", "enterprise", "integration"} {
		if s := t.get(k); s.isNull() && s != nil {
			m.rep.add(Translated, nil, "empty: the incumbent's defaults, translated below", s)
		}
	}
	method := strings.ToLower(t.get("authentication_method").str())
	if method == "" {
		method = "jwt"
	}
	if s := t.get("authentication_method"); s != nil {
		m.rep.add(Translated, []string{at + ".auth.method"}, "", s)
	}
	n.set("auth.method", method, originOr(t.get("authentication_method"), "the incumbent's default, jwt (authentication_method not set)"))
	m.translateServer(n, at, t, method)
	m.translateCredentials(n, at, t, method)
	for _, k := range []string{"trusted", "uses_business_id"} {
		if s := t.get(k); s != nil {
			m.rep.add(NoEquivalent, nil, connectorFlagNotes[k], s)
		}
	}
}

var connectorFlagNotes = map[string]string{
	"trusted":          "orgsync needs no mark for an organization that trusts the primary's directory: a user created in a secondary organization is added there as in the primary (mapping targets such as org2::Group)",
	"uses_business_id": "deprecated by the incumbent; orgsync reads each user's identity type as the service reports it (the underlying type of a Business ID), which is what the incumbent recommends: set the identity type you mean (enterpriseID or federatedID)",
}

// originOr is a setting's origin for a comment, or what to say when it is
// not set.
func originOr(s *setting, otherwise string) string {
	if s == nil {
		return otherwise
	}
	return "from " + s.origin()
}

// translateServer translates the server: block (addresses, timeout,
// retries) and ssl_verify.
func (m *migration) translateServer(n *node, at string, t serviceTarget, method string) {
	host, endpoint := t.get("server.host"), t.get("server.endpoint")
	base := "https://" + firstNonEmpty(host.str(), defaultHost)
	ep := firstNonEmpty(endpoint.str(), defaultEndpoint)
	prefix, ok := strings.CutSuffix(strings.TrimRight(ep, "/"), defaultEndpoint)
	if ok {
		base += prefix
		m.rep.add(Translated, []string{at + ".baseURL"}, "orgsync adds the API path /v2/usermanagement itself", host, endpoint)
	} else {
		m.rep.add(NoEquivalent, []string{at + ".baseURL"}, fmt.Sprintf("orgsync calls the service at <baseURL>%s; an API path %q that does not end with it has no equivalent", defaultEndpoint, ep), endpoint)
		m.rep.add(Translated, []string{at + ".baseURL"}, "", host)
	}
	n.set("baseURL", base, originOr(host, "the incumbent's default host, "+defaultHost+" (server.host not set)"))
	authHost := t.get("server.auth_host")
	if authHost == nil {
		authHost = t.get("server.ims_host")
	}
	m.rep.add(Translated, []string{at + ".authBaseURL"}, "", authHost)
	n.set("authBaseURL", "https://"+firstNonEmpty(authHost.str(), defaultAuthHost), originOr(authHost, "the incumbent's default, "+defaultAuthHost+" (server.auth_host not set)"))
	m.authEndpoint(at, t, method)
	if s := t.get("server.timeout"); s != nil && s.str() != "" {
		n.set("timeouts.request", s.str()+"s", "from "+s.origin()+" (seconds)")
		m.rep.add(Translated, []string{at + ".timeouts.request"}, "one HTTP attempt, as the incumbent's timeout", s)
	}
	if s := t.get("server.retries"); s != nil && s.str() != "" {
		n.set("retries.max", intValue(s), "from "+s.origin())
		m.rep.add(Differs, []string{at + ".retries.max"}, "orgsync's retries wait with exponential back-off and jitter, and a 429 waits its Retry-After; the incumbent's umapi client retries on its own schedule", s)
	}
	for _, k := range []string{"ssl_verify", "server.ssl_verify"} {
		if s := t.get(k); s != nil {
			if v, ok := s.boolean(); ok && !v {
				n.set("tls.insecureSkipVerify", true, "from "+s.origin()+": False")
				m.rep.add(Translated, []string{at + ".tls.insecureSkipVerify"}, "prefer tls.caFile with the certificate authority of the proxy that inspects the traffic: orgsync warns at every run while verification is off", s)
			} else {
				m.rep.add(Translated, nil, "certificates are verified: orgsync's default", s)
			}
		}
	}
}

// authEndpoint reports the token endpoint settings: orgsync uses the
// service's standard paths under authBaseURL.
func (m *migration) authEndpoint(at string, t serviceTarget, method string) {
	s := t.get("server.auth_endpoint")
	if s == nil {
		s = t.get("server.ims_endpoint_jwt")
	}
	if s == nil {
		return
	}
	want := jwtEndpoint
	if method == "oauth" {
		want = oauthEndpoint
	}
	switch {
	case s.str() == want && method == "oauth":
		m.rep.add(Differs, []string{at + ".authBaseURL"}, "orgsync asks for the client-credentials token at "+orgsyncOAuthEndpoint+", the service's current version of this endpoint", s)
	case s.str() == want:
		m.rep.add(Translated, []string{at + ".authBaseURL"}, "orgsync uses the same path under authBaseURL", s)
	default:
		m.rep.add(NoEquivalent, []string{at + ".authBaseURL"}, fmt.Sprintf("orgsync uses the service's standard token paths (%s, %s) under authBaseURL; another path has no equivalent", jwtEndpoint, orgsyncOAuthEndpoint), s)
	}
}

// translateCredentials translates the enterprise: (or integration:) block:
// the organization id and the credentials, secrets as references.
func (m *migration) translateCredentials(n *node, at string, t serviceTarget, method string) {
	block := "enterprise"
	if t.get("enterprise") == nil && t.get("integration") != nil {
		block = "integration"
	}
	get := func(k string) *setting { return t.get(block + "." + k) }
	org := get("org_id")
	orgID := vendorOrg(org.str())
	n.set("orgId", orgID, originOr(org, "FILL IN: no org_id"))
	switch {
	case org == nil:
		m.rep.FillIn = append(m.rep.FillIn, at+".orgId: the connector file has no org_id")
	case orgID != org.str():
		m.rep.add(Translated, []string{at + ".orgId"}, "the same organization id, with the suffix spelt @VendorOrg as orgsync expects", org)
	default:
		m.rep.add(Translated, []string{at + ".orgId"}, placeholderNote(org), org)
	}
	if s := t.get(block); s != nil {
		s.done = true
	}
	// The incumbent's keyring entries are under the organization id as
	// its file writes it.
	keyringUser := org.str()
	m.clientID(n, at, t, get, keyringUser)
	m.secretSetting(n, at+".auth.clientSecret", "auth.clientSecret", get("client_secret"), get("secure_client_secret_key"), keyringUser, envName(t.name, "CLIENT_SECRET"), "the client secret")
	if method != "jwt" {
		for _, k := range []string{"tech_acct_id", "tech_acct", "priv_key_path", "priv_key_data", "priv_key_pass", "secure_priv_key_data_key", "secure_priv_key_data", "secure_priv_key_pass_key"} {
			if s := get(k); s != nil {
				m.rep.add(NotUsed, nil, "the oauth method signs no JWT (the incumbent refuses tech_acct_id with oauth)", s)
			}
		}
		return
	}
	m.jwtCredentials(n, at, t, get, keyringUser)
}

// clientID translates the client id (client_id, its older name api_key,
// or a keyring key).
func (m *migration) clientID(n *node, at string, t serviceTarget, get func(string) *setting, orgID string) {
	id := get("client_id")
	if id == nil {
		id = get("api_key")
	}
	if key := get("secure_client_id_key"); key != nil {
		value := "FILL IN: the client id kept in the keyring under " + key.str()
		n.set("auth.clientId", value, "from "+key.origin()+" (a keyring key: the value is not read)")
		m.rep.add(Translated, []string{at + ".auth.clientId"}, "orgsync keeps the client id in the configuration (it is sent with every request and is not a secret); read it with: keyring get "+key.str()+" "+orgID, key)
		m.rep.FillIn = append(m.rep.FillIn, fmt.Sprintf("%s.auth.clientId: the client id kept in the OS keyring under key %q, user %q (keyring get %s %s)", at, key.str(), orgID, key.str(), orgID))
		if id != nil {
			m.rep.add(NotUsed, nil, "the incumbent refuses both client_id and secure_client_id_key", id).risk(Refused)
		}
		return
	}
	n.set("auth.clientId", id.str(), originOr(id, "FILL IN: no client_id"))
	if id == nil {
		m.rep.FillIn = append(m.rep.FillIn, at+".auth.clientId: the connector file has no client_id")
		return
	}
	m.rep.add(Translated, []string{at + ".auth.clientId"}, placeholderNote(id), id)
}

// jwtCredentials translates the technical account and the private key of
// the JWT method.
func (m *migration) jwtCredentials(n *node, at string, t serviceTarget, get func(string) *setting, orgID string) {
	tech := get("tech_acct_id")
	if tech == nil {
		tech = get("tech_acct")
	}
	n.set("auth.technicalAccountId", tech.str(), originOr(tech, "FILL IN: no tech_acct_id"))
	if tech != nil {
		m.rep.add(Translated, []string{at + ".auth.technicalAccountId"}, placeholderNote(tech), tech)
	} else {
		m.rep.FillIn = append(m.rep.FillIn, at+".auth.technicalAccountId: the jwt method needs the technical account id")
	}
	if p := get("priv_key_path"); p != nil {
		path := p.str()
		if !filepath.IsAbs(path) {
			path = filepath.Join(filepath.Dir(p.file.path), path)
		}
		n.set("auth.privateKey", secret.Ref{File: m.pathFor(path)}, "from "+p.origin())
		m.rep.add(Translated, []string{at + ".auth.privateKey"}, "the same key file (orgsync reads it at every run; keep it mode 600)", p)
	} else {
		m.secretSetting(n, at+".auth.privateKey", "auth.privateKey", get("priv_key_data"), firstSetting(get("secure_priv_key_data_key"), get("secure_priv_key_data")), orgID, envName(t.name, "PRIVATE_KEY"), "the private key (PEM)")
	}
	pass, passKey := get("priv_key_pass"), get("secure_priv_key_pass_key")
	if pass != nil || passKey != nil {
		m.secretSetting(n, at+".auth.privateKeyPassphrase", "auth.privateKeyPassphrase", pass, passKey, orgID, envName(t.name, "PRIVATE_KEY_PASSPHRASE"), "the passphrase of the encrypted private key (orgsync reads the key as the incumbent's encrypt command writes it)")
	}
}

// secretSetting writes the secret reference for a secret of the incumbent
// given in plain text (plain: an environment variable, never the value)
// or in the OS keyring (key: the keyring command, for the same entry).
func (m *migration) secretSetting(n *node, key, rel string, plain, key2 *setting, user, env, what string) {
	switch {
	case key2 != nil:
		ref, how := m.keyringRef(key2.str(), user)
		n.set(rel, ref, "from "+key2.origin()+" (the same OS keyring entry)")
		m.rep.add(Translated, []string{key}, "the same keyring entry, "+how, key2)
		m.rep.Secrets = append(m.rep.Secrets, fmt.Sprintf("%s: %s stays in the OS keyring (key %q, user %q), %s. To move it out of the keyring: write it to a file only orgsync reads (mode 600) and use {file: path}, or put it in an environment variable ({env: NAME}), or read it from your secret manager ({exec: [...]}, docs/configuration.md)",
			key, what, key2.str(), user, how))
		if plain != nil {
			m.rep.add(NotUsed, nil, "the incumbent refuses a secret both in plain text and in the keyring", plain).risk(Refused)
		}
	case plain != nil:
		n.set(rel, secret.Ref{Env: env}, "from "+plain.origin()+" (the value is not copied)")
		m.rep.add(Translated, []string{key}, "a secret: orgsync never keeps one in its configuration; the value was not copied", plain)
		m.rep.Secrets = append(m.rep.Secrets, fmt.Sprintf("%s: %s was in plain text in %s (%s): set the environment variable %s to it, or write it to a file only orgsync reads (chmod 600) and use {file: path}, or read it from a secret manager ({exec: [...]}, docs/configuration.md); then remove it from the incumbent's file",
			key, what, plain.file.name, plain.path, env))
	default:
		n.set(rel, secret.Ref{Env: env}, "FILL IN: the incumbent's file has no "+rel)
		m.rep.FillIn = append(m.rep.FillIn, fmt.Sprintf("%s: the connector file has none: set the environment variable %s", key, env))
	}
}

// envName is the environment variable a secret is moved to: ORGSYNC_X for
// the primary, ORGSYNC_<NAME>_X for a secondary organization.
func envName(target, what string) string {
	if target == "" {
		return "ORGSYNC_" + what
	}
	return "ORGSYNC_" + strings.ToUpper(regexp.MustCompile(`[^A-Za-z0-9]+`).ReplaceAllString(target, "_")) + "_" + what
}

// vendorOrg spells an organization id as orgsync expects it: the
// incumbent's published @AdobeOrg is @VendorOrg.
func vendorOrg(id string) string {
	if base, ok := strings.CutSuffix(id, "@AdobeOrg"); ok {
		return base + "@VendorOrg"
	}
	return id
}

// placeholderNote notes a value that is one of the incumbent's example
// placeholders ("Org ID goes here").
func placeholderNote(s *setting) string {
	v := strings.ToLower(s.str())
	if strings.Contains(v, "goes here") || strings.Contains(v, "ldap.example.com") || strings.Contains(v, "sample-817042") {
		return fmt.Sprintf("%q is the placeholder of the incumbent's example file: fill in the real value", s.str())
	}
	return ""
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func firstSetting(ss ...*setting) *setting {
	for _, s := range ss {
		if s != nil {
			return s
		}
	}
	return nil
}

// intValue is a setting's integer value, or its text when it is not one.
func intValue(s *setting) any {
	var n int
	if _, err := fmt.Sscanf(s.str(), "%d", &n); err == nil && fmt.Sprint(n) == s.str() {
		return n
	}
	return s.str()
}
