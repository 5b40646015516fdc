package migrate

import (
	"regexp"
	"strings"
)

// oktaStatuses are Okta's user statuses.
var oktaStatuses = []string{"STAGED", "PROVISIONED", "ACTIVE", "RECOVERY", "PASSWORD_EXPIRED", "LOCKED_OUT", "SUSPENDED", "DEPROVISIONED"}

// statusFilter matches the incumbent's Okta user filters that only test
// the status: user.status == "ACTIVE", or user.status in ("A", "B").
var (
	statusEquals = regexp.MustCompile(`^\s*user\.status\s*==\s*["']([A-Z_]+)["']\s*$`)
	statusIn     = regexp.MustCompile(`^\s*user\.status\s+in\s*[\[(]\s*((?:["'][A-Z_]+["']\s*,?\s*)+)[\])]\s*$`)
	quotedWord   = regexp.MustCompile(`["']([A-Z_]+)["']`)
)

// oktaConnector translates connector-okta.yml.
func (m *migration) oktaConnector(src *source, f merged) {
	b, at := src.block, src.at
	host := f.get("host")
	url := host.str()
	if url != "" && !strings.Contains(url, "://") {
		url = "https://" + url
	}
	b.set("orgURL", firstNonEmpty(url, "FILL IN"), originOr(host, "no host"))
	m.rep.add(Translated, []string{at + ".orgURL"}, placeholderNote(host), host)
	m.secretSetting(b, at+".apiToken", "apiToken", f.get("api_token"), f.get("secure_api_token_key"), host.str(), "ORGSYNC_OKTA_API_TOKEN", "the Okta API token")
	m.oktaUsersFilter(src, f)
	if s := f.get("group_filter_format"); s != nil {
		if strings.TrimSpace(s.str()) == "{group}" {
			m.rep.add(Translated, nil, "orgsync finds a mapped Okta group by its name, as the incumbent's default", s)
		} else {
			m.rep.add(NoEquivalent, nil, "orgsync finds a mapped Okta group by its exact name; a query built around it has no equivalent (groups.search narrows the groups listed for pattern rules), and the name alone may find other groups", s).risk(AppliesMore)
		}
	}
	m.templates(src, f)
	if s := f.get("string_encoding"); s != nil {
		m.rep.add(Translated, nil, "Okta's API answers in UTF-8, which orgsync reads", s)
	}
	m.rep.Differences = append(m.rep.Differences, "Okta: orgsync reads the users of the whole Okta organization (narrowed by users.statuses and users.search) and their groups; the filter expression keeps the members of the mapped groups, the users the incumbent's Okta connector reads")
}

// oktaUsersFilter translates the incumbent's all_users_filter (a Python
// test of each Okta user; default: active users) into users.statuses when
// it only tests the status.
func (m *migration) oktaUsersFilter(src *source, f merged) {
	s := f.get("all_users_filter")
	text := firstNonEmpty(s.str(), `user.status == "ACTIVE"`)
	var statuses []string
	if g := statusEquals.FindStringSubmatch(text); g != nil {
		statuses = []string{g[1]}
	} else if g := statusIn.FindStringSubmatch(text); g != nil {
		for _, q := range quotedWord.FindAllStringSubmatch(g[1], -1) {
			statuses = append(statuses, q[1])
		}
	}
	for _, st := range statuses {
		if !containsFold(oktaStatuses, st) {
			statuses = nil
		}
	}
	if statuses == nil {
		m.rep.add(NoEquivalent, nil, "a Python test orgsync cannot run: write it as an Okta search (users.search, e.g. profile.department eq \"Design\") or a filter expression over user.attributes (docs/sources.md); until then orgsync reads the users of its default statuses (docs/sources.md), which may be more than the incumbent's", s).risk(AppliesMore)
		return
	}
	src.block.set("users.statuses", statuses, originOr(s, "the incumbent's default all_users_filter, active users only (orgsync's default also keeps users locked out or with an expired password)"))
	m.rep.add(Translated, []string{src.at + ".users.statuses"}, "", s)
}
