// Package adtest is an LDAP server for tests that answers like Active
// Directory, built on github.com/jimlambrt/gldap. The Active Directory
// tests run against a real domain controller (Samba, internal/sambatest);
// this fake stays for what Samba does not show: faults (a server that
// repeats a page for ever), values that are not UTF-8, the filters a
// client sends, and Windows' ranged values of attributes with more than
// MaxValRange values. It holds a small
// directory in memory and really evaluates the filters it receives,
// including AD's matching rules: LDAP_MATCHING_RULE_BIT_AND
// (1.2.840.113556.1.4.803), LDAP_MATCHING_RULE_BIT_OR (…804) and
// LDAP_MATCHING_RULE_IN_CHAIN (…1941). Like AD it computes memberOf from
// the groups' member values (the primary group is not in either), lists
// LDAP_CAP_ACTIVE_DIRECTORY_OID in the root DSE, pages results with the
// Simple Paged Results control and enforces a size limit on searches that
// do not page.
package adtest

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	ldap3 "github.com/go-ldap/ldap/v3"
	"github.com/hashicorp/go-hclog"
	"github.com/jimlambrt/gldap"
)

// Entry is one directory entry. Attribute names are matched ignoring case.
type Entry struct {
	DN    string
	Attrs map[string][]string
}

// Options configure a server.
type Options struct {
	BindDN, Password string // the one account that may bind; anonymous binds are refused
	Entries          []Entry
	// SizeLimit caps searches without the paging control (AD's
	// MaxPageSize, 1000 by default; 0 here means 1000).
	SizeLimit int
	// MaxValRange is how many values of a multi-valued attribute the
	// server returns at once (Windows' MaxValRange, 1500; 0 here means no
	// limit): beyond it the attribute comes back as member;range=0-1499,
	// and the client asks for member;range=1500-* and so on.
	MaxValRange int
	// RepeatCookie makes the server misbehave: every page after the first
	// answers the cookie it was sent, so a client that trusts cookies
	// would read the same page for ever.
	RepeatCookie bool
}

// Server is a running test directory.
type Server struct {
	URL  string
	opt  Options
	srv  *gldap.Server
	mu   sync.Mutex
	seen []string // filters received, in order
}

// Start starts a server on a free loopback port and stops it when the test
// ends.
func Start(t testing.TB, opt Options) *Server {
	t.Helper()
	if opt.SizeLimit == 0 {
		opt.SizeLimit = 1000
	}
	opt.Entries = withMemberOf(opt.Entries)
	s := &Server{opt: opt}
	bound := &boundAddr{addr: make(chan string, 1)}
	srv, err := gldap.NewServer(gldap.WithLogger(hclog.New(&hclog.LoggerOptions{Level: hclog.Info, Output: bound})))
	if err != nil {
		t.Fatal(err)
	}
	mux, err := gldap.NewMux()
	if err != nil {
		t.Fatal(err)
	}
	if err := mux.Bind(s.bind); err != nil {
		t.Fatal(err)
	}
	if err := mux.Search(s.search); err != nil {
		t.Fatal(err)
	}
	if err := srv.Router(mux); err != nil {
		t.Fatal(err)
	}
	failed := make(chan error, 1)
	go func() { failed <- srv.Run("127.0.0.1:0") }() // it binds a free port and logs it
	t.Cleanup(func() { _ = srv.Stop() })
	select {
	case addr := <-bound.addr:
		s.srv, s.URL = srv, "ldap://"+addr
	case err := <-failed:
		t.Fatalf("adtest: the server did not start: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("adtest: the server did not start")
	}
	return s
}

// boundAddr hears the server's log (gldap's) and sends the address of
// its "listening" line.
type boundAddr struct {
	once sync.Once
	addr chan string
}

var listeningLine = regexp.MustCompile(`listening:.* addr=(\S+)`)

func (b *boundAddr) Write(p []byte) (int, error) {
	if m := listeningLine.FindSubmatch(p); m != nil {
		b.once.Do(func() { b.addr <- string(m[1]) })
	}
	return len(p), nil
}

// Filters returns the filters of the searches received so far.
func (s *Server) Filters() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.seen...)
}

func (s *Server) bind(w *gldap.ResponseWriter, r *gldap.Request) {
	resp := r.NewBindResponse(gldap.WithResponseCode(gldap.ResultInvalidCredentials))
	defer func() { _ = w.Write(resp) }()
	m, err := r.GetSimpleBindMessage()
	if err != nil {
		return
	}
	if m.UserName != "" && strings.EqualFold(m.UserName, s.opt.BindDN) && string(m.Password) == s.opt.Password {
		resp.SetResultCode(gldap.ResultSuccess)
	}
}

func (s *Server) search(w *gldap.ResponseWriter, r *gldap.Request) {
	m, err := r.GetSearchMessage()
	if err != nil {
		_ = w.Write(r.NewSearchDoneResponse(gldap.WithResponseCode(gldap.ResultProtocolError)))
		return
	}
	s.mu.Lock()
	s.seen = append(s.seen, m.Filter)
	s.mu.Unlock()
	if m.BaseDN == "" && m.Scope == gldap.BaseObject {
		s.writeEntries(w, r, m, []Entry{rootDSE}, nil)
		return
	}
	filter, err := ldap3.CompileFilter(m.Filter)
	if err != nil {
		_ = w.Write(r.NewSearchDoneResponse(gldap.WithResponseCode(gldap.ResultProtocolError), gldap.WithDiagnosticMessage(err.Error())))
		return
	}
	var matches []Entry
	for _, e := range s.opt.Entries {
		if inScope(e.DN, m.BaseDN, m.Scope) && s.matches(filter, e) {
			matches = append(matches, e)
		}
	}
	s.page(w, r, m, matches)
}

// page writes one page of matches, or all of them up to the size limit
// when the request does not page.
func (s *Server) page(w *gldap.ResponseWriter, r *gldap.Request, m *gldap.SearchMessage, matches []Entry) {
	var paging *gldap.ControlPaging
	for _, c := range m.Controls {
		if p, ok := c.(*gldap.ControlPaging); ok {
			paging = p
		}
	}
	if paging == nil {
		if len(matches) > s.opt.SizeLimit {
			s.writeEntries(w, r, m, matches[:s.opt.SizeLimit], nil)
			return
		}
		s.writeEntries(w, r, m, matches, nil)
		return
	}
	offset, _ := strconv.Atoi(string(paging.Cookie))
	size := int(paging.PagingSize)
	if size == 0 || offset > len(matches) { // abandon
		s.writeEntries(w, r, m, nil, &gldap.ControlPaging{})
		return
	}
	end := min(offset+size, len(matches))
	next := &gldap.ControlPaging{}
	switch {
	case s.opt.RepeatCookie && offset > 0:
		next.Cookie = paging.Cookie
	case end < len(matches):
		next.Cookie = []byte(strconv.Itoa(end))
	}
	s.writeEntries(w, r, m, matches[offset:end], next)
}

// writeEntries writes entries with the requested attributes and the done
// message; without paging, more matches than the size limit end with
// sizeLimitExceeded.
func (s *Server) writeEntries(w *gldap.ResponseWriter, r *gldap.Request, m *gldap.SearchMessage, entries []Entry, paging *gldap.ControlPaging) {
	for _, e := range entries {
		resp := r.NewSearchResponseEntry(e.DN)
		for name, values := range selectAttrs(e, m.Attributes, s.opt.MaxValRange) {
			resp.AddAttribute(name, values)
		}
		_ = w.Write(resp)
	}
	code := gldap.ResultSuccess
	if paging == nil && len(entries) == s.opt.SizeLimit && len(entries) > 0 {
		code = gldap.ResultSizeLimitExceeded
	}
	done := r.NewSearchDoneResponse(gldap.WithResponseCode(code))
	if paging != nil {
		done.SetControls(paging)
	}
	_ = w.Write(done)
}

// selectAttrs returns the attributes of e a search asked for: all for none
// or "*", none for "1.1"; an attribute asked for as name;range=low-* gives
// its values from low on. Beyond maxRange values (0: no limit) an attribute
// is returned as name;range=low-high, as Windows does, and the last part
// as name;range=low-*.
func selectAttrs(e Entry, want []string, maxRange int) map[string][]string {
	out := map[string][]string{}
	for name, values := range e.Attrs {
		low, asked := 0, len(want) == 0 || containsFold(want, "*") || containsFold(want, name)
		for _, w := range want {
			if base, rng, ok := strings.Cut(w, ";"); ok && strings.EqualFold(base, name) {
				if _, err := fmt.Sscanf(strings.ToLower(rng), "range=%d-*", &low); err == nil {
					asked = true
				}
			}
		}
		if !asked {
			continue
		}
		if maxRange == 0 || (low == 0 && len(values) <= maxRange) {
			out[name] = values
			continue
		}
		low = min(low, len(values))
		high := min(low+maxRange, len(values))
		if high == len(values) {
			out[fmt.Sprintf("%s;range=%d-*", name, low)] = values[low:]
		} else {
			out[fmt.Sprintf("%s;range=%d-%d", name, low, high-1)] = values[low:high]
		}
	}
	return out
}

// rootDSE is the root DSE of a Windows Server domain controller, shortened.
var rootDSE = Entry{DN: "", Attrs: map[string][]string{
	"supportedCapabilities": {"1.2.840.113556.1.4.800", "1.2.840.113556.1.4.1670", "1.2.840.113556.1.4.1791"},
	"supportedLDAPVersion":  {"3"},
}}

// withMemberOf returns copies of entries whose memberOf lists the groups
// whose member values name them.
func withMemberOf(entries []Entry) []Entry {
	memberOf := map[string][]string{}
	for _, e := range entries {
		for _, m := range values(e, "member") {
			memberOf[normDN(m)] = append(memberOf[normDN(m)], e.DN)
		}
	}
	out := make([]Entry, len(entries))
	for i, e := range entries {
		attrs := make(map[string][]string, len(e.Attrs)+1)
		for k, v := range e.Attrs {
			attrs[k] = v
		}
		if groups := memberOf[normDN(e.DN)]; len(groups) > 0 {
			attrs["memberOf"] = groups
		}
		out[i] = Entry{DN: e.DN, Attrs: attrs}
	}
	return out
}

// inScope reports whether dn is within base at scope.
func inScope(dn, base string, scope gldap.Scope) bool {
	d, b := normDN(dn), normDN(base)
	switch scope {
	case gldap.BaseObject:
		return d == b
	case gldap.SingleLevel:
		_, parent, ok := strings.Cut(d, ",")
		return ok && parent == b
	}
	return d == b || b == "" || strings.HasSuffix(d, ","+b)
}

func normDN(dn string) string {
	parts := strings.Split(strings.ToLower(dn), ",")
	for i, p := range parts {
		k, v, _ := strings.Cut(p, "=")
		parts[i] = strings.TrimSpace(k) + "=" + strings.TrimSpace(v)
	}
	return strings.Join(parts, ",")
}

func values(e Entry, attr string) []string {
	for k, v := range e.Attrs {
		if strings.EqualFold(k, attr) {
			return v
		}
	}
	return nil
}

func containsFold(ss []string, s string) bool {
	for _, x := range ss {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}
