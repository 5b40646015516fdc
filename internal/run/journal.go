package run

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/orgsync/orgsync/internal/store"
	"github.com/orgsync/orgsync/reconcile"
)

// journaled sends an approval's changes through next, noting each
// request in the approval's journal (ap) before it is sent and its answer
// after: nothing is sent that the journal could not note first, and once
// the journal cannot be written the run stops sending (the context it
// returns is cancelled, which reconcile.Apply stops at). Err says why it
// stopped, nil when it did not.
type journaled struct {
	next   reconcile.Sender
	ap     *store.Applying
	cancel context.CancelFunc
	mu     sync.Mutex
	err    error
}

// journal wraps next for the apply of ap, and returns the context to
// apply with.
func journal(ctx context.Context, next reconcile.Sender, ap *store.Applying) (context.Context, *journaled) {
	ctx, cancel := context.WithCancel(ctx)
	return ctx, &journaled{next: next, ap: ap, cancel: cancel}
}

// Send notes req, sends it, and notes its answer.
func (s *journaled) Send(ctx context.Context, req reconcile.Request, testOnly bool) ([]reconcile.EntryFailure, error) {
	keys := make([]string, len(req.Entries))
	for i := range req.Entries {
		keys[i] = req.Entries[i].Target()
	}
	n, err := s.ap.Sending(keys)
	if err != nil {
		s.stop(err)
		return nil, fmt.Errorf("not sent: %w", err)
	}
	failed, err := s.next.Send(ctx, req, testOnly)
	refused := make([]string, 0, len(failed))
	for _, f := range failed {
		if f.Index >= 0 && f.Index < len(keys) {
			refused = append(refused, keys[f.Index])
		}
	}
	if jerr := s.ap.Answered(n, refused, err != nil || len(refused) < len(failed)); jerr != nil {
		s.stop(jerr)
	}
	return failed, err
}

// RevokeInvite notes the revoke of email's invite, sends it, and notes
// its answer.
func (s *journaled) RevokeInvite(ctx context.Context, email string) error {
	n, err := s.ap.Sending([]string{email})
	if err != nil {
		s.stop(err)
		return fmt.Errorf("not sent: %w", err)
	}
	err = s.next.RevokeInvite(ctx, email)
	unknown := err != nil && !errors.Is(err, reconcile.ErrNoPendingInvite) // none pending: revoked already
	if jerr := s.ap.Answered(n, nil, unknown); jerr != nil {
		s.stop(jerr)
	}
	return err
}

// stop stops the sending: the journal could not be written (err).
func (s *journaled) stop(err error) {
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.mu.Unlock()
	s.cancel()
}

// Err is why the sending stopped (the journal could not be written), nil
// when it did not: an error of phase record, what was sent before it
// being recovered from the journal by the next orgsync that touches the
// approval.
func (s *journaled) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		return nil
	}
	return InPhase(PhaseRecord, fmt.Errorf("the approval's journal could not be written, so the run stopped sending: %w", s.err))
}
