package umapi

import (
	"context"
	"iter"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/internal/util/crash"
)

// pageReader reads one page of a listing.
type pageReader func(ctx context.Context, page int) (*UsersPage, error)

// pages turns a page reader into a sequence that starts at page 0.
func (c *Client) pages(ctx context.Context, read pageReader) iter.Seq2[*UsersPage, error] {
	return func(yield func(*UsersPage, error) bool) {
		first, err := read(ctx, 0)
		if err != nil {
			yield(nil, err)
			return
		}
		c.continuePages(ctx, first, read, yield)
	}
}

// pagesFrom is pages for a caller that already read the first page.
func (c *Client) pagesFrom(ctx context.Context, first *UsersPage, read pageReader) iter.Seq2[*UsersPage, error] {
	return func(yield func(*UsersPage, error) bool) { c.continuePages(ctx, first, read, yield) }
}

// continuePages hands over first and the following pages in order (read
// ahead when first gave X-Page-Count and ReadAhead > 0). It stops after the
// last page (see PageInfo.IsLast) and, without handing
// it over, at a page the service already answered: one whose
// X-Current-Page is below the index asked for or equal to the previous
// page's, or (without that header) whose first user is the previous page's
// first user. A server that keeps answering its last page therefore cannot
// make the listing loop.
func (c *Client) continuePages(ctx context.Context, first *UsersPage, read pageReader, yield func(*UsersPage, error) bool) {
	next := func(page int) (*UsersPage, error) { return read(ctx, page) }
	if c.cfg.ReadAhead > 0 && first.PageCount > first.Page+1 && !first.LastPage {
		ra := startReadAhead(ctx, read, first.Page+1, first.PageCount, c.cfg.ReadAhead)
		defer ra.stop()
		next = ra.next
	}
	var prev pageMark
	p := first
	for page := first.Page; ; page++ {
		if page > first.Page {
			var err error
			if p, err = next(page); err != nil {
				yield(nil, err)
				return
			}
			if markOf(p).repeats(prev) {
				c.stats.pageRepeated()
				c.log.Warn("the service answered a page already read; listing ends here",
					zap.Int("page", page), zap.Int("currentPage", p.CurrentPage),
					zap.Int("pageCount", p.PageCount), zap.String("requestID", p.RequestID))
				return
			}
		}
		if !yield(p, nil) || p.IsLast() {
			return
		}
		prev = markOf(p)
	}
}

// pageMark is what walk remembers of the previous page.
type pageMark struct {
	asked, current int
	firstID        string
	size           int
}

// markOf remembers what identifies page p.
func markOf(p *UsersPage) pageMark {
	m := pageMark{asked: p.Page, current: p.CurrentPage, size: len(p.Users)}
	if len(p.Users) > 0 {
		m.firstID = p.Users[0].ID + "\x00" + p.Users[0].Email
	}
	return m
}

// repeats reports whether m (the page just read) is a page already read.
func (m pageMark) repeats(prev pageMark) bool {
	if m.current >= 0 {
		return m.current < m.asked || (prev.current >= 0 && m.current == prev.current)
	}
	return m.size > 0 && m.size == prev.size && m.firstID == prev.firstID
}

// readAhead fetches pages from..count-1 with at most depth of them
// requested or decoded and not yet handed over.
type readAhead struct {
	ctx     context.Context
	read    pageReader
	cancel  context.CancelFunc
	slots   chan struct{}
	results []chan pageResult
}

// pageResult is one page read ahead, or the error reading it, or the
// panic of its reader (raised again in the goroutine that takes the page).
type pageResult struct {
	page   *UsersPage
	err    error
	panics *crash.Error
}

// startReadAhead starts reading pages from..count-1, at most depth at a
// time ahead of the caller; stop cancels it.
func startReadAhead(ctx context.Context, read pageReader, from, count, depth int) *readAhead {
	ctx, cancel := context.WithCancel(ctx)
	ra := &readAhead{ctx: ctx, read: read, cancel: cancel, slots: make(chan struct{}, depth), results: make([]chan pageResult, count)}
	for i := range ra.results {
		ra.results[i] = make(chan pageResult, 1)
	}
	go func() {
		for page := from; page < count; page++ {
			select {
			case ra.slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			go func() {
				var r pageResult
				r.panics = crash.Run(func() { r.page, r.err = read(ctx, page) })
				ra.results[page] <- r
			}()
		}
	}()
	return ra
}

// next waits for a page and frees its slot. A page beyond the count page 0
// gave (the organization grew meanwhile) is read directly.
func (ra *readAhead) next(page int) (*UsersPage, error) {
	if page >= len(ra.results) {
		return ra.read(ra.ctx, page)
	}
	select {
	case r := <-ra.results[page]:
		<-ra.slots
		crash.Rethrow(r.panics)
		return r.page, r.err
	case <-ra.ctx.Done():
		return nil, ra.ctx.Err()
	}
}

// stop cancels the requests still under way.
func (ra *readAhead) stop() { ra.cancel() }
