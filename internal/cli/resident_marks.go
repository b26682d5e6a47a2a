package cli

import (
	"sync"

	"github.com/loopbreaker/loopbreaker/internal/residentwire"
)

// A hook process the agent CLI kills before it answers (its timeout, a
// `pkill` loop) leaves its running mark, and the next call reports it.
// Through the thin client, the process the CLI kills is the client, while
// the resident breaker goes on and finishes the call: so the call's mark
// is named by the client's process (the peer the kernel names), and
// heldMarks keeps it past the call until the client acknowledged the
// answer (residentwire.Ack), once it passed it on. A client killed before
// that leaves the mark, as a killed in-process hook does.
type heldMarks struct {
	mu     sync.Mutex
	held   map[*residentwire.Request]*callMark
	marked map[string]bool
	// spares are the files the calls' marks are written in.
	spares markSpares
}

func newHeldMarks() *heldMarks {
	return &heldMarks{held: map[*residentwire.Request]*callMark{}, marked: map[string]bool{}}
}

// forCall is the mark a call from the client process pid keeps, nil when
// the kernel did not name the client (the call then marks and unmarks
// itself, named by this process).
func (h *heldMarks) forCall(pid int) *callMark {
	if pid <= 0 {
		return nil
	}
	return &callMark{pid: pid}
}

// hold keeps the mark m of the answered call req until delivered.
func (h *heldMarks) hold(req *residentwire.Request, m *callMark) {
	if m == nil || m.remove == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.held[req], h.marked[m.path] = m, true
}

// delivered removes the running mark of a call whose client acknowledged
// the answer. One that did not was killed before it passed the answer on:
// its mark stays, and the project's next call reports it (a tool call
// that went on unseen).
func (h *heldMarks) delivered(req *residentwire.Request, acked bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	m := h.held[req]
	if m == nil {
		return
	}
	if acked {
		m.remove()
	}
	delete(h.held, req)
	delete(h.marked, m.path)
}

// awaited reports whether the running mark at path is of a call whose
// client may still acknowledge its answer: not one to report yet.
func (h *heldMarks) awaited(path string) bool {
	if h == nil {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.marked[path]
}
