package clouddir

import (
	"context"
	"time"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/internal/restapi"
	"github.com/orgsync/orgsync/source/internal/usertmpl"
	"github.com/orgsync/orgsync/source/mapping"
)

// Source is what the cloud directory sources have in common: the
// source.Source methods around one Read of a Directory. entra.Source and
// okta.Source embed it.
type Source struct {
	opts Options
	log  *zap.Logger
	api  API
	// Retry holds the client's waits and retries (tests shorten them).
	Retry restapi.Options
}

// API is what a cloud source says about its API.
type API struct {
	BaseURL string
	Timeout time.Duration
	// RateLimit is the most requests a minute the client sends (0: no
	// limit of its own).
	RateLimit int
	// Auth loads the credential (read at each Read).
	Auth func() (restapi.Auth, error)
	// Directory returns the directory over a signed-in client; attrs are
	// the user attributes the templates name.
	Directory func(c *restapi.Client, attrs []string) Directory
	// Hint, if set, adds what to do to an error of the read or of the
	// sign-in (naming the configuration key to check).
	Hint func(error) error
}

// newSource returns a source named name that builds users by spec (with
// the source's default templates) and maps groups, runs expressions and
// checks groups as o says; extra are the user attributes its expressions
// read (users.extraAttributes). spec must have passed Validate.
func newSource(name string, spec, defaults usertmpl.Spec, extra []string, o source.Options, api API) (*Source, error) {
	fields, err := usertmpl.Parse(spec, defaults, "users.")
	if err != nil {
		return nil, err
	}
	m := o.Mapper
	if m == nil {
		if m, err = mapping.New(nil); err != nil {
			return nil, err
		}
	}
	log := o.Logger().With(zap.String("source", name))
	s := &Source{opts: Options{Name: name, Mapper: m, Fields: &fields, CallerChecksGroups: o.CallerChecksGroups,
		Expressions: usertmpl.Expressions{Program: o.Expressions, ExtraAttributes: extra, Explain: o.Explain}},
		log: log, api: api}
	s.Retry.Log = log
	return s, nil
}

// connect signs in and returns the client and the directory over it.
func (s *Source) connect(ctx context.Context) (*restapi.Client, Directory, error) {
	auth, err := s.api.Auth()
	if err != nil {
		return nil, nil, err
	}
	opts := s.Retry
	opts.BaseURL, opts.Auth, opts.Timeout, opts.RateLimit = s.api.BaseURL, auth, s.api.Timeout, s.api.RateLimit
	c, err := restapi.New(ctx, opts)
	if err != nil {
		return nil, nil, err
	}
	attrs := append(s.opts.Fields.Attributes(), s.opts.Expressions.ExtraAttributes...)
	return c, s.api.Directory(c, attrs), nil
}

// hint adds what to do to err, when the source knows.
func (s *Source) hint(err error) error {
	if s.api.Hint == nil {
		return err
	}
	return s.api.Hint(err)
}

// Name returns the source's name.
func (s *Source) Name() string { return s.opts.Name }

// Read signs in, reads every user with its mapped groups and returns
// them. It fails as a whole on any error, when a group named by an exact
// mapping rule does not exist, and when no user is found. Its errors do
// not begin with the source's name: the caller adds Name().
func (s *Source) Read(ctx context.Context) (*source.Result, error) {
	start := time.Now()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the token source
	c, dir, err := s.connect(ctx)
	if err != nil {
		return nil, err
	}
	if err := c.Authorize(); err != nil {
		return nil, s.hint(err)
	}
	res, err := Read(ctx, dir, s.opts)
	if err != nil {
		return nil, s.hint(err)
	}
	st := c.Stats()
	s.log.Info("cloud directory read", zap.String("api", dir.Where()), zap.Int("users", res.Users.Len()),
		zap.Int("leftOut", dir.LeftOut()), zap.Int("problems", len(res.Problems)),
		zap.Int64("requests", st.Requests), zap.Int64("throttled", st.Throttled), zap.Duration("elapsed", time.Since(start)))
	return res, nil
}
