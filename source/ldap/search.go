package ldap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	ldap3 "github.com/go-ldap/ldap/v3"
	"go.uber.org/zap"
)

// query is one search: where, what and which attributes.
type query struct {
	base   string
	scope  int
	filter string
	attrs  []string
}

// searchConn is a bound connection that runs one search request at a
// time: wireConn in production; the benchmarks also drive go-ldap's own
// client through it to compare the two.
type searchConn interface {
	// search sends one search request, with the paging control when
	// paging is not nil, calls each for every entry and returns the
	// paging cookie of the final response (empty when there is none).
	// The cookie may point into a read buffer reused by the next call.
	search(q query, timeLimit int, paging *ldap3.ControlPaging, each func(*ldap3.Entry)) ([]byte, error)
}

// searcher runs paged searches on one bound connection.
type searcher struct {
	conn     searchConn
	url      string
	startTLS bool
	bindDN   string
	pageSize int
	// timeLimit is the server-side time limit of each page, in seconds.
	timeLimit int
	// limits names the server's settings that stopped a search with a
	// size or administrative limit (result code), and how to lift them
	// (nil: the server is not known yet).
	limits func(code uint16) string
	log    *zap.Logger
}

// search reads every entry q selects, page by page with the Simple Paged
// Results control, and calls each for every entry. Any error (including a
// size or time limit the server hits) fails the whole search: a partial
// list is never returned as if it were complete.
func (s *searcher) search(ctx context.Context, q query, each func(*ldap3.Entry)) error {
	s.logQuery(q)
	paging := ldap3.NewControlPaging(uint32(s.pageSize))
	var sent []byte      // the cookie of the page just asked for
	var lastFirst string // the DN of the first entry of the page before
	read := 0            // entries of the pages before
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		first, n := "", 0
		cookie, err := s.conn.search(q, s.timeLimit, paging, func(e *ldap3.Entry) {
			if n == 0 {
				first = e.DN
			}
			n++
			each(e)
		})
		read += n
		if err != nil {
			return s.searchError(q, read, err)
		}
		if len(cookie) == 0 {
			return nil
		}
		// A server may answer the cookie it was sent (Samba keeps one per
		// search); only the same page again means it would never end.
		if sent != nil && bytes.Equal(cookie, sent) && (n == 0 || first == lastFirst) {
			return fmt.Errorf("search %s under %q: the server answered the paging cookie it was sent with the same page again, so it would be read for ever: the server's paged results are broken; the search is stopped", q.filter, q.base)
		}
		sent, lastFirst = bytes.Clone(cookie), first // cookie points into the connection's read buffer
		paging.SetCookie(sent)
	}
}

// searchError is the error of search q, which failed with err after read
// entries: a size or administrative limit of the server is said as such,
// with the settings to lift it, instead of the server's result code and
// its often empty message.
func (s *searcher) searchError(q query, read int, err error) error {
	var le *ldap3.Error
	if s.limits == nil || !errors.As(err, &le) ||
		(le.ResultCode != ldap3.LDAPResultSizeLimitExceeded && le.ResultCode != ldap3.LDAPResultAdminLimitExceeded) {
		return fmt.Errorf("search %s under %q: %w", q.filter, q.base, err)
	}
	said := ""
	if le.Err != nil && le.Err.Error() != "" {
		said = ": " + le.Err.Error()
	}
	return &limitError{err: err, msg: fmt.Sprintf("search %s under %q was stopped by the server after %d entries (LDAP result %d, %s%s): %s; a partial read is never used",
		q.filter, q.base, read, le.ResultCode, ldap3.LDAPResultCodeMap[le.ResultCode], said, s.limits(le.ResultCode))}
}

// limitError is a search the server stopped at one of its limits.
type limitError struct {
	msg string
	err error
}

func (e *limitError) Error() string { return e.msg }
func (e *limitError) Unwrap() error { return e.err }

// logQuery logs q at debug level as the equivalent ldapsearch command, with
// -W (prompt) in place of the password.
func (s *searcher) logQuery(q query) {
	if ce := s.log.Check(zap.DebugLevel, "ldap search"); ce != nil {
		ce.Write(zap.String("ldapsearch", s.ldapsearch(q)))
	}
}

// ldapsearch renders q as an ldapsearch command line.
func (s *searcher) ldapsearch(q query) string {
	args := []string{"ldapsearch", "-H", s.url, "-x"}
	if s.startTLS {
		args = append(args, "-ZZ")
	}
	if s.bindDN != "" {
		args = append(args, "-D", s.bindDN, "-W")
	}
	args = append(args, "-b", q.base, "-s", scopeName(q.scope), "-E", fmt.Sprintf("pr=%d/noprompt", s.pageSize))
	if s.timeLimit > 0 {
		args = append(args, "-l", fmt.Sprint(s.timeLimit))
	}
	args = append(args, q.filter)
	args = append(args, q.attrs...)
	for i, a := range args[1:] {
		args[i+1] = shellQuote(a)
	}
	return strings.Join(args, " ")
}

func scopeName(scope int) string {
	switch scope {
	case ldap3.ScopeBaseObject:
		return "base"
	case ldap3.ScopeSingleLevel:
		return "one"
	}
	return "sub"
}

// shellQuote quotes s for a POSIX shell when it needs quoting.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=,@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
