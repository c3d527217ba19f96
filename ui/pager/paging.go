package pager

import "github.com/locktable/locktable/backend"

// Paging is where a paged read stands: the request id answers carry,
// where the next page starts, whether one is being read, and what the
// last read failed with. It holds the one choice for a failed read: no
// page is asked for until Retry, and a failed reload goes on, when
// retried, from where the paging stood before it (the rows it did not
// replace are stale). Model is built on it, and says through it where
// its reads stand (Model.Paging).
type Paging struct {
	shown     bool // the pager was shown: it keeps its pages loaded
	answered  bool // a page was read since the pager was shown
	req       Request
	next      backend.Cursor
	resumed   backend.Cursor // where the paging stood when a reload began
	loading   bool
	reloading bool // a reload's first page is on its way
	err       error
	failed    Answer // Failed or FailedReload while err is set
	stale     error  // as Model.Paging reports it: why the rows are as last read
	// swept: every page was read at once (the view's sweep): a page
	// asked for before ends nothing more than that.
	swept bool
}

// Stale is why the rows are as last read and not as they are now (a
// reload failed), nil when they are not; told by Model.Paging.
func (p Paging) Stale() error { return p.stale }

// Answer is what an answer to a page request does to the rows.
type Answer int

// The answers.
const (
	Dropped      Answer = iota // an answer to a request made before a reload: ignore it
	Appended                   // a page: add its rows after those shown
	Reloaded                   // a reload's first page: its rows replace those shown
	Failed                     // a page failed: the rows stay
	FailedReload               // a reload failed: the rows stay, stale
)

// Wants reports whether to read the next page, left rows being loaded
// below the selection when a few screens are ahead rows: not while one
// is read, after a failed read, or when every page is read.
func (p *Paging) Wants(left, ahead int) bool {
	return !p.loading && p.err == nil && !p.next.Done() && left < ahead
}

// Start marks a page read, and returns the request it answers and where
// it starts.
func (p *Paging) Start() (Request, backend.Cursor) {
	p.loading = true
	return p.req, p.next
}

// Reload starts reading every page again, from the first: answers to
// requests made before are dropped from now on.
func (p *Paging) Reload() (Request, backend.Cursor) {
	p.req++
	if !p.reloading {
		p.resumed = p.next
	}
	p.reloading, p.next, p.err, p.swept = true, backend.Cursor{}, nil, false
	return p.Start()
}

// Restart forgets where the paging stood, reading nothing: the next page
// is the first, and answers to requests made before are dropped.
func (p *Paging) Restart() { *p = Paging{req: p.req + 1, shown: p.shown} }

// Answer takes the answer to request req: next is where the page read
// ends, err what it failed with.
func (p *Paging) Answer(req Request, next backend.Cursor, err error) Answer {
	if req != p.req {
		return Dropped
	}
	p.loading = false
	reloading := p.reloading
	p.reloading = false
	if p.err = err; err != nil {
		p.failed = Failed
		if reloading {
			p.next, p.failed = p.resumed, FailedReload
		}
		return p.failed
	}
	if p.next = next; p.swept {
		p.next = backend.End()
	}
	if reloading {
		return Reloaded
	}
	return Appended
}

// Retry forgets the failure, and says what failed (Failed, FailedReload)
// to be done again; Dropped when nothing failed.
func (p *Paging) Retry() Answer {
	if p.err == nil {
		return Dropped
	}
	p.err = nil
	return p.failed
}

// Request is the request answers to reads made now carry.
func (p Paging) Request() Request { return p.req }

// Next is where the next page starts.
func (p Paging) Next() backend.Cursor { return p.next }

// Reloading reports whether a reload's first page is on its way: the
// rows shown are about to be replaced.
func (p Paging) Reloading() bool { return p.reloading }

// Loading reports whether a page is being read.
func (p Paging) Loading() bool { return p.loading }

// Done reports whether every page is read.
func (p Paging) Done() bool { return p.next.Done() }

// Err is what the last read failed with, nil if it did not fail.
func (p Paging) Err() error { return p.err }

// Shown reports whether the pager was ever shown (and so reads its pages).
func (p Paging) Shown() bool { return p.shown }
