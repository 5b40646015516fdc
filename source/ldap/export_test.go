package ldap

import (
	"context"
	"fmt"
	"net"
	"time"

	ldap3 "github.com/go-ldap/ldap/v3"

	"github.com/orgsync/orgsync/source"
)

// GoLDAPMode chooses how ReadWithGoLDAP runs each page: with go-ldap's
// Conn.Search (the page is collected, then handed over) or Conn.SearchAsync
// (entries stream through a channel of one page while slapd sends).
type GoLDAPMode int

// The ways of running a page with go-ldap's client.
const (
	GoLDAPSearch GoLDAPMode = iota
	GoLDAPSearchAsync
)

// ReadWithGoLDAP reads src like src.Read, with the same searches, paging,
// templates, validation and membership code, but over go-ldap's own client
// (ldap3.DialURL, Bind, Search or SearchAsync) in place of wireConn. It
// exists to measure and check that client against the one the source uses;
// it connects to the first URL only, without TLS.
func ReadWithGoLDAP(ctx context.Context, src source.Source, mode GoLDAPMode) (*source.Result, error) {
	s := src.(*Source)
	start := time.Now()
	url := s.cfg.urls()[0]
	conn, err := ldap3.DialURL(url, ldap3.DialWithDialer(&net.Dialer{Timeout: s.cfg.ConnectTimeout}))
	if err != nil {
		return nil, fmt.Errorf("%s: connect: %w", url, err)
	}
	defer conn.Close()
	conn.SetTimeout(s.cfg.SearchTimeout)
	if s.cfg.BindDN != "" {
		pw, err := s.loadPassword()
		if err != nil {
			return nil, err
		}
		if err := conn.Bind(s.cfg.BindDN, pw.Reveal()); err != nil {
			return nil, fmt.Errorf("%s: bind as %q: %w", url, s.cfg.BindDN, err)
		}
	}
	return s.readFrom(ctx, &goldapConn{conn: conn, ctx: ctx, mode: mode}, url, start)
}

// goldapConn is a searchConn over go-ldap's client.
type goldapConn struct {
	conn *ldap3.Conn
	ctx  context.Context
	mode GoLDAPMode
}

func (g *goldapConn) search(q query, timeLimit int, paging *ldap3.ControlPaging, each func(*ldap3.Entry)) ([]byte, error) {
	var controls []ldap3.Control
	if paging != nil {
		controls = []ldap3.Control{paging}
	}
	req := ldap3.NewSearchRequest(q.base, q.scope, ldap3.NeverDerefAliases, 0, timeLimit, false, q.filter, q.attrs, controls)
	if g.mode == GoLDAPSearch {
		res, err := g.conn.Search(req)
		if err != nil {
			return nil, err
		}
		for _, e := range res.Entries {
			each(e)
		}
		return cookieIn(res.Controls), nil
	}
	buffer := 1
	if paging != nil {
		buffer = int(paging.PagingSize)
	}
	r := g.conn.SearchAsync(g.ctx, req, buffer)
	var cookie []byte
	for r.Next() {
		if e := r.Entry(); e != nil {
			each(e)
		}
		if c := cookieIn(r.Controls()); c != nil {
			cookie = c
		}
	}
	if err := g.ctx.Err(); err != nil {
		return nil, err // SearchAsync reports a cancelled search as a clean end
	}
	return cookie, r.Err()
}

// cookieIn returns the cookie of the paging control among controls.
func cookieIn(controls []ldap3.Control) []byte {
	if p, ok := ldap3.FindControl(controls, ldap3.ControlTypePaging).(*ldap3.ControlPaging); ok {
		return p.Cookie
	}
	return nil
}
