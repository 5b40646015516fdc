// Package ldap is the LDAP and Active Directory source: it reads users and
// their group memberships from a directory server with go-ldap and turns
// them into desired users whose groups are already mapped to target groups.
//
// The source connects over ldap://, ldaps:// or StartTLS, binds (simple,
// anonymous, Kerberos or NTLM; the last two sign the messages after the
// bind over ldap://), reads groups and users with paged searches, resolves
// membership (member, uniqueMember, memberUid, memberOf, nested groups,
// Active Directory primary groups) and builds each user's fields from
// attribute templates. Any LDAP error fails the whole read; a bad entry is
// reported as a source.Problem and skipped.
package ldap

import (
	"context"
	"errors"
	"fmt"
	"time"

	ldap3 "github.com/go-ldap/ldap/v3"
	"go.uber.org/zap"

	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/expr"
	"github.com/orgsync/orgsync/source/internal/usertmpl"
	"github.com/orgsync/orgsync/source/mapping"
)

// Source reads one directory. Make it with Config.Open.
type Source struct {
	name   string
	cfg    Config
	fields usertmpl.Fields
	mapper *mapping.Mapper
	log    *zap.Logger
	// callerChecksGroups: a missing exactly mapped group goes into
	// Result.MissingGroups instead of failing Read
	// (source.Options.CallerChecksGroups).
	callerChecksGroups bool
	// prog runs over every user entry (nil: none), with the
	// users.extraAttributes of the entry as its attributes (an attribute
	// the entry lacks reads as ""; every value of a multi-valued one in
	// user.attributeValues) and the directory groups it is in (see
	// splitNames) as its directory groups.
	prog    *expr.Program
	explain string // the user to trace (source.Options.Explain)
	// blockKey is the key path of the block in the file (source.Options.Key).
	blockKey string
}

// applyDefaults fills in the defaults that do not depend on the server
// (FreeIPA's base DNs do: plan).
func (c *Config) applyDefaults() {
	if c.PageSize == 0 {
		c.PageSize = DefaultPageSize
	}
	if c.ConnectTimeout == 0 {
		c.ConnectTimeout = DefaultConnectTimeout
	}
	if c.SearchTimeout == 0 {
		c.SearchTimeout = DefaultSearchTimeout
	}
	if c.Groups.BaseDN == "" && c.Flavor != FlavorFreeIPA {
		c.Groups.BaseDN = c.Users.BaseDN
	}
	if c.Groups.NameAttribute == "" {
		c.Groups.NameAttribute = "cn"
	}
	if c.Groups.UIDAttribute == "" {
		c.Groups.UIDAttribute = "uid"
	}
}

// Name returns the name given to Open.
func (s *Source) Name() string { return s.name }

// Read connects, reads every user with its mapped groups and disconnects.
// It fails as a whole on any LDAP error and when a directory group named by
// an exact mapping rule does not exist. Like the file sources' errors, its
// errors do not begin with the source's name: the caller adds Name().
func (s *Source) Read(ctx context.Context) (*source.Result, error) {
	res, err := s.read(ctx)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
			err = fmt.Errorf("%w (%v)", ctxErr, err)
		}
		return nil, err
	}
	return res, nil
}

func (s *Source) read(ctx context.Context) (*source.Result, error) {
	start := time.Now()
	conn, url, err := s.connect(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.conn.Close() })
	defer stop()
	return s.readFrom(ctx, conn, url, start)
}

// readFrom reads users and memberships over conn, bound to the server at
// url; start is when the read began, for the log.
func (s *Source) readFrom(ctx context.Context, conn searchConn, url string, start time.Time) (*source.Result, error) {
	sr := &searcher{conn: conn, url: url, startTLS: s.cfg.StartTLS, bindDN: s.cfg.BindDN,
		pageSize: s.cfg.PageSize, timeLimit: int((s.cfg.SearchTimeout + time.Second - 1) / time.Second), log: s.log}
	dse, err := s.server(sr)
	if err != nil {
		return nil, err
	}
	p, err := s.plan(dse)
	if err != nil {
		return nil, err
	}
	sr.limits = func(code uint16) string { return p.flavor.limits(code, limitHolder(s.cfg.BindDN), s.cfg.PageSize) }
	memb, err := s.readMemberships(ctx, sr, p)
	if err != nil {
		return nil, err
	}
	res, err := s.readUsers(ctx, sr, p, memb)
	if err != nil {
		return nil, err
	}
	res.FoundGroups, res.MissingGroups = memb.found, memb.missing
	// The run logs "source read" at info; this adds the server and flavor.
	s.log.Debug("ldap source read", zap.String("server", url), zap.String("flavor", dse.flavor),
		zap.Int("users", res.Users.Len()), zap.Int("problems", len(res.Problems)), zap.Duration("elapsed", time.Since(start)))
	return res, nil
}

// server returns the configured flavor, or the one the root DSE tells,
// and the suffix when FreeIPA's layout needs it for a base DN.
func (s *Source) server(sr *searcher) (rootDSE, error) {
	needSuffix := s.cfg.Flavor == FlavorFreeIPA && (s.cfg.Users.BaseDN == "" || s.cfg.Groups.BaseDN == "")
	if s.cfg.Flavor != "" && !needSuffix {
		return rootDSE{flavor: s.cfg.Flavor}, nil
	}
	var d rootDSE
	q := query{scope: ldap3.ScopeBaseObject, filter: "(objectClass=*)", attrs: rootDSEAttributes}
	if _, err := sr.conn.search(q, sr.timeLimit, nil, func(e *ldap3.Entry) { d = rootDSEOf(e) }); err != nil {
		if needSuffix {
			return d, fmt.Errorf("reading the root DSE for the suffix of FreeIPA's cn=accounts (set users.baseDN and groups.baseDN to skip this): %w", err)
		}
		return d, fmt.Errorf("reading the root DSE to detect the flavor (set flavor to skip this): %w", err)
	}
	if s.cfg.Flavor != "" {
		d.flavor = s.cfg.Flavor
	}
	return d, nil
}
