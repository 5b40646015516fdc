package config

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/orgsync/orgsync/internal/util/weburl"
	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/secret"
	"github.com/orgsync/orgsync/source/diag"
	"github.com/orgsync/orgsync/source/mapping"
	"github.com/orgsync/orgsync/target/umwire"
)

// validation collects the problems of the decoded configuration; the walker
// gives their lines.
type validation struct {
	w        *walker
	errs     []Problem
	warnings []Problem
	// unset are the secrets whose environment variable is not set. Load
	// leaves them to the run (which reads the secrets afresh each time)
	// unless the file has other problems: then they are reported with
	// those, so that every problem is known at once.
	unset []Problem
}

// errorf records a problem at path.
func (v *validation) errorf(path, format string, args ...any) {
	v.errs = append(v.errs, Problem{Path: path, Line: v.w.lineOf(path), Message: fmt.Sprintf(format, args...)})
}

// warnf records a warning at path.
func (v *validation) warnf(path, format string, args ...any) {
	v.warnings = append(v.warnings, Problem{Path: path, Line: v.w.lineOf(path), Message: fmt.Sprintf(format, args...)})
}

// fields adds a part's field errors, whose paths are relative to prefix.
func (v *validation) fields(prefix string, errs []diag.FieldError) {
	for _, e := range errs {
		path := prefix
		switch {
		case strings.HasPrefix(e.Field, "["):
			path += e.Field
		case e.Field != "":
			path = join(prefix, e.Field)
		}
		v.errorf(path, "%s", e.Reason)
	}
}

// fieldErrors adds the problems of err (a diag.FieldErrors, whose
// paths are relative to prefix, or any error, at prefix); nil adds none.
func (v *validation) fieldErrors(prefix string, err error) {
	var fe diag.FieldErrors
	switch {
	case errors.As(err, &fe):
		v.fields(prefix, fe)
	case err != nil:
		v.errorf(prefix, "%v", err)
	}
}

// merged returns the walker's problems and the validation's, in file
// order. A validation problem at or under a path the walker already
// reported is dropped: it is the same mistake seen twice.
func (v *validation) merged() []Problem {
	all := append([]Problem(nil), v.w.problems...)
	if len(all) > 0 || len(v.errs) > 0 {
		all = append(all, v.unset...)
	}
	for _, p := range v.errs {
		if !v.coveredByWalk(p.Path) {
			all = append(all, p)
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Line < all[j].Line })
	return all
}

// coveredByWalk reports whether the walker already reported path or a
// path above it, or a misspelling of path's key (a key "orgID" given for
// orgId is one mistake, not also a missing orgId).
func (v *validation) coveredByWalk(path string) bool {
	if slices.Contains(v.w.meant, path) {
		return true
	}
	for _, p := range v.w.problems {
		if path == p.Path || strings.HasPrefix(path, p.Path+".") || strings.HasPrefix(path, p.Path+"[") {
			return true
		}
	}
	return false
}

// validate checks every section of a defaulted configuration, including
// the mapping rules and the reconciler's own policy checks.
func (c *Config) validate(v *validation) {
	c.validateTargets(v)
	c.validateQualifiedGroups(v)
	c.validateSources(v)
	m, err := mapping.New(c.Mapping)
	v.fieldErrors("mapping", err)
	c.validatePolicies(v, m)
	c.Scope.validate(v)
	c.Schedule.validate(v)
	c.Logging.validate(v)
	c.State.validate(v)
	c.validateIncremental(v)
	c.Notify.validate(v)
	c.Status.validate(v)
	oneOf(v, "safety.onLimit", c.Safety.OnLimit, onLimits)
	for i := range c.Targets {
		if s := c.Targets[i].Safety; s != nil && s.OnLimit != "" {
			oneOf(v, join(c.Targets[i].path, "safety.onLimit"), s.OnLimit, onLimits)
		}
	}
}

// validate checks the state directory's settings.
func (s *State) validate(v *validation) {
	positive(v, "state.maxFileMB", int64(s.MaxFileMB))
	positive(v, "state.retention", int64(s.Retention))
	if s.Dir == "" {
		return
	}
	if st, err := os.Stat(filepath.Dir(s.Dir)); err != nil || !st.IsDir() {
		v.errorf("state.dir", "the directory above %s does not exist: create it (writable by the user orgsync runs as)", s.Dir)
	}
}

// validateIncremental checks incremental runs: they need the state
// directory, and a full read less often than the daemon runs.
func (c *Config) validateIncremental(v *validation) {
	in := &c.Incremental
	positive(v, "incremental.fullEvery", int64(in.FullEvery))
	if !in.Enabled {
		return
	}
	if c.State.Dir == "" {
		v.errorf("incremental.enabled", "incremental runs keep a snapshot of each organization in the state directory: set state.dir (e.g. state: {dir: /var/lib/orgsync}), or remove incremental")
		return
	}
	if sched, err := c.Schedule.Parse(); err == nil {
		if every := ShortestInterval(sched); time.Duration(in.FullEvery) <= every {
			v.warnf("incremental.fullEvery", "%s is not longer than the %s between the daemon's runs (schedule.cron): each of its runs reads the whole organization", time.Duration(in.FullEvery), every)
		}
	}
}

// validatePolicies checks the top-level policy and each target's own,
// then, where they are well-formed, the reconciler's own checks (such as
// no admin group among userGroups) of each organization's policy, which
// it keeps, checked, for the runs (ValidPolicy).
func (c *Config) validatePolicies(v *validation, m *mapping.Mapper) {
	c.valid = make([]*reconcile.ValidPolicy, len(c.Targets))
	topBad := c.Policy.validateAt(v, "policy")
	for i := range c.Targets {
		t := &c.Targets[i]
		path, bad := "policy", topBad
		if t.Policy != nil {
			path = join(t.path, "policy")
			bad = t.Policy.validateAt(v, path)
		}
		if bad || m == nil {
			continue
		}
		p, err := c.TargetPolicy(t, m)
		if err == nil {
			c.valid[i], err = p.Valid()
		}
		if err != nil {
			v.errorf(path, "%s", err)
		}
	}
}

// validate checks the target at path: organization id, addresses,
// credentials, limits, timeouts and TLS.
func (t *Target) validate(v *validation, path string) {
	at := func(key string) string { return join(path, key) }
	switch {
	case t.OrgID == "":
		v.errorf(at("orgId"), "required: the organization id, %s", umwire.OrgIDForm)
	case !umwire.IsOrgID(t.OrgID):
		v.errorf(at("orgId"), "%q is not an organization id: expected %s", t.OrgID, umwire.OrgIDForm)
	}
	if t.BaseURL == "" {
		v.errorf(at("baseURL"), "required: the service's base address, e.g. https://%s", PlaceholderHost)
	}
	t.noPlaceholders(v, at)
	checkURL(v, at("baseURL"), t.BaseURL)
	noAPIPath(v, at("baseURL"), t.BaseURL)
	if t.AuthBaseURL != t.BaseURL { // else defaulted from baseURL, checked above
		checkURL(v, at("authBaseURL"), t.AuthBaseURL)
		noAPIPath(v, at("authBaseURL"), t.AuthBaseURL)
	}
	checkURL(v, at("proxy"), t.Proxy)
	t.Auth.validate(v, at)
	positive(v, at("limits.reads"), int64(t.Limits.Reads))
	positive(v, at("limits.requests"), int64(t.Limits.Requests))
	positive(v, at("limits.window"), int64(t.Limits.Window))
	positive(v, at("timeouts.request"), int64(t.Timeouts.Request))
	positive(v, at("retries.minWait"), int64(t.Retries.MinWait))
	if t.Retries.MaxWait < t.Retries.MinWait {
		v.errorf(at("retries.maxWait"), "must not be shorter than minWait (%s)", t.Retries.MinWait)
	}
	if t.TLS.CAFile != "" {
		if _, err := os.Stat(t.TLS.CAFile); err != nil {
			v.errorf(at("tls.caFile"), "cannot read the CA bundle: %v", err)
		}
	}
	if t.TLS.InsecureSkipVerify {
		v.warnf(at("tls.insecureSkipVerify"), "certificate verification is off: use this only for tests")
	}
}

// The placeholder values of the starter configuration `orgsync init`
// writes: a run with any of them cannot work.
const (
	PlaceholderOrgID            = "0123456789ABCDEF@VendorOrg"
	PlaceholderHost             = "usermanagement.example.com"
	PlaceholderTechnicalAccount = "0123456789ABCDEF@techacct.example.com"
	PlaceholderClientID         = "0123456789abcdef0123456789abcdef"
)

// noPlaceholders refuses the placeholder values of the starter
// configuration.
func (t *Target) noPlaceholders(v *validation, at func(string) string) {
	placeholder := func(key, value string) {
		v.errorf(at(key), "%q is the placeholder orgsync init writes: put your organization's value there (the service's admin console shows it)", value)
	}
	if t.OrgID == PlaceholderOrgID {
		placeholder("orgId", t.OrgID)
	}
	if t.Auth.ClientID == PlaceholderClientID {
		placeholder("auth.clientId", t.Auth.ClientID)
	}
	if t.Auth.TechnicalAccountID == PlaceholderTechnicalAccount {
		placeholder("auth.technicalAccountId", t.Auth.TechnicalAccountID)
	}
	if u, err := url.Parse(t.BaseURL); err == nil && u.Hostname() == PlaceholderHost {
		placeholder("baseURL", t.BaseURL)
	}
	if u, err := url.Parse(t.AuthBaseURL); err == nil && u.Hostname() == PlaceholderHost && t.AuthBaseURL != t.BaseURL {
		placeholder("authBaseURL", t.AuthBaseURL)
	}
}

// noAPIPath refuses an address that holds the service's API path: the
// documentation says the API lives there, but orgsync adds the path to
// the base address itself (and the token endpoints are not below it).
func noAPIPath(v *validation, path, addr string) {
	if i := strings.Index(addr, umwire.BasePath); i >= 0 {
		v.errorf(path, "%q holds the API path %s, which orgsync adds itself: write %q", addr, umwire.BasePath, addr[:i])
	}
}

// validate checks the credentials the auth method needs.
func (a *Auth) validate(v *validation, at func(string) string) {
	if a.ClientID == "" {
		v.errorf(at("auth.clientId"), "required: the integration's client id (API key)")
	}
	secretRef(v, at("auth.clientSecret"), a.ClientSecret)
	switch a.Method {
	case AuthJWT:
		if a.TechnicalAccountID == "" {
			v.errorf(at("auth.technicalAccountId"), "required by method jwt: the integration's technical account id")
		}
		secretRef(v, at("auth.privateKey"), a.PrivateKey)
		if a.PrivateKeyPassphrase.IsSet() {
			secretRef(v, at("auth.privateKeyPassphrase"), a.PrivateKeyPassphrase)
		}
	case AuthOAuth:
		if a.PrivateKey.IsSet() || a.PrivateKeyPassphrase.IsSet() || a.TechnicalAccountID != "" {
			v.errorf(at("auth.method"), "privateKey, privateKeyPassphrase and technicalAccountId belong to method jwt; remove them or set method: jwt")
		}
	default:
		v.errorf(at("auth.method"), "%q is not an auth method: use jwt or oauth", a.Method)
	}
}

// envSet notes a secret of path whose environment variable is not set
// (see validation.unset).
func (v *validation) envSet(path string, r secret.Ref) {
	if r.Env == "" {
		return
	}
	if _, err := r.Load(); err != nil {
		v.unset = append(v.unset, Problem{Path: path, Line: v.w.lineOf(path), Message: err.Error()})
	}
}

// secretRef checks a secret reference and warns when its file is readable
// by every user of the machine (see secretReadable).
func secretRef(v *validation, path string, r secret.Ref) {
	if err := r.Check(); err != nil {
		v.errorf(path, "%v", err)
		return
	}
	v.envSet(path, r)
	if r.File == "" {
		return
	}
	st, err := os.Stat(r.File)
	if err != nil {
		v.errorf(path+".file", "cannot read the secret file: %v", err)
		return
	}
	if secretReadable(r.File, st.Mode().Perm()) {
		v.warnf(path+".file", "%s is readable by every user of this machine (mode %04o): chmod o-rwx it (e.g. chmod 600); in Kubernetes set the secret volume's defaultMode to 0400 (or 0440 with fsGroup)",
			r.File, st.Mode().Perm())
	}
}

// publishedMark marks a credential published for the demo and the
// simulator as no secret: the demo's client secret ends in it, and the
// line above the demo key's PEM block says it.
const publishedMark = "not-a-real-secret"

// secretReadable reports whether a secret file with mode perm is worth a
// warning: when others (not the owner, not the group) may read it. A group
// that may read it is left alone, as a Kubernetes secret volume mounted
// with fsGroup (0440) must be. A published demo credential, which marks
// itself (publishedMark), is no secret: a checkout's 0644 is fine for it.
func secretReadable(file string, perm os.FileMode) bool {
	if perm&0o004 == 0 || runtime.GOOS == "windows" { // Windows keeps who may read a file in its ACL, which the mode does not show
		return false
	}
	data, err := os.ReadFile(file)
	return err != nil || !bytes.Contains(data, []byte(publishedMark))
}

// checkURL reports s when it is set and not an http or https URL.
func checkURL(v *validation, path, s string) {
	if s == "" {
		return
	}
	if _, err := weburl.Parse(s); err != nil {
		v.errorf(path, "%v", err)
	}
}

// positive reports n when it is not greater than zero.
func positive(v *validation, path string, n int64) {
	if n <= 0 {
		v.errorf(path, "must be greater than zero")
	}
}

// validateAt reports the problems of the policy at path; it returns
// whether it found any.
func (p *Policy) validateAt(v *validation, path string) bool {
	before := len(v.errs)
	for i, s := range p.Exclude.IdentityTypes {
		if _, ok := reconcile.ParseIdentityType(s); !ok {
			v.errorf(index(join(path, "exclude.identityTypes"), i), "%q is not an identity type: use vendorID, enterpriseID or federatedID", s)
		}
	}
	for i, s := range p.Exclude.Usernames {
		if _, err := regexp.Compile(s); err != nil {
			v.errorf(index(join(path, "exclude.usernames"), i), "not a valid regular expression: %v", err)
		}
	}
	oneOf(v, join(path, "unmatchedUsers"), p.UnmatchedUsers, unmatchedPolicies)
	for i, s := range p.UpdateAttributes {
		oneOf(v, index(join(path, "updateAttributes"), i), s, updatableAttributes)
	}
	return len(v.errs) > before
}

// validate checks the log level and format.
func (l *Logging) validate(v *validation) {
	oneOf(v, "logging.level", l.Level, LogLevels)
	oneOf(v, "logging.format", l.Format, LogFormats)
	positive(v, "logging.maxSizeMB", int64(l.MaxSizeMB))
	if l.MaxBackups < 0 {
		v.errorf("logging.maxBackups", "must not be negative (0 keeps every rotated file)")
	}
	if l.MaxAgeDays < 0 {
		v.errorf("logging.maxAgeDays", "must not be negative (0: no age limit)")
	}
	if l.File == "" {
		return
	}
	if st, err := os.Stat(filepath.Dir(l.File)); err != nil || !st.IsDir() {
		v.errorf("logging.file", "the directory of %s does not exist: create it (writable by the user orgsync runs as)", l.File)
	}
}

// oneOf reports s when it is not one of allowed.
func oneOf(v *validation, path, s string, allowed []string) {
	for _, a := range allowed {
		if s == a {
			return
		}
	}
	v.errorf(path, "%q is not allowed: use one of %s", s, strings.Join(allowed, ", "))
}
