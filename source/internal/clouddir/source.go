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
	// Retry holds the client's waits and retries (tests shorten them).
	Retry restapi.Options
	// connect returns the signed-in client and the directory over it.
	connect func(ctx context.Context, retry restapi.Options) (*restapi.Client, Directory, error)
	// hint adds what to do to an error of the API.
	hint func(error) error
}

// NewSource returns a source named name that builds users with fields and
// maps groups with m (nil: no mapping). connect signs in; hint (may be
// nil) adds advice to errors.
func NewSource(name string, fields usertmpl.Fields, m *mapping.Mapper, log *zap.Logger,
	connect func(context.Context, restapi.Options) (*restapi.Client, Directory, error), hint func(error) error) *Source {
	if log == nil {
		log = zap.NewNop()
	}
	log = log.With(zap.String("source", name))
	s := &Source{opts: Options{Name: name, Mapper: m}, log: log, connect: connect, hint: hint}
	s.opts.Fields = &fields
	s.Retry.Log = log
	return s
}

// Name returns the source's name.
func (s *Source) Name() string { return s.opts.Name }

// CallerChecksGroups makes Read report the groups of exact mapping rules
// that it does not find in Result.MissingGroups instead of failing (see
// source.CheckGroups).
func (s *Source) CallerChecksGroups() { s.opts.CallerChecksGroups = true }

// Read signs in, reads every user with its mapped groups and returns
// them. It fails as a whole on any error, when a group named by an exact
// mapping rule does not exist, and when no user is found. Its errors do
// not begin with the source's name: the caller adds Name().
func (s *Source) Read(ctx context.Context) (*source.Result, error) {
	start := time.Now()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the token source
	c, dir, err := s.connect(ctx, s.Retry)
	if err != nil {
		return nil, err
	}
	if err := c.Authorize(); err != nil {
		return nil, err
	}
	res, err := Read(ctx, dir, s.opts)
	if err != nil {
		if s.hint != nil {
			err = s.hint(err)
		}
		return nil, err
	}
	st := c.Stats()
	s.log.Info("source read", zap.String("api", dir.Where()), zap.Int("users", len(res.Users)),
		zap.Int("leftOut", dir.LeftOut()), zap.Int("problems", len(res.Problems)),
		zap.Int64("requests", st.Requests), zap.Int64("throttled", st.Throttled), zap.Duration("elapsed", time.Since(start)))
	return res, nil
}
