package httpapi

import (
	_ "embed"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/breakerserver"
	"github.com/loopbreaker/loopbreaker/metrics"
	"github.com/loopbreaker/loopbreaker/scoped"
)

// checkRequest asks whether the work described by Context may go on.
type checkRequest struct {
	Context scoped.Context `json:"context"`
}

func (r checkRequest) problems() map[string]string { return prefixed("context.", r.Context.Problems()) }

// prefixed returns p's problems under prefix; nil when there are none
// (valid requests, nearly all of them, allocate nothing here).
func prefixed(prefix string, p map[string]string) map[string]string {
	if len(p) == 0 {
		return nil
	}
	out := make(map[string]string, len(p))
	for k, v := range p {
		out[prefix+k] = v
	}
	return out
}

// addProblem records what is wrong with field, making the map if needed.
func addProblem(p *map[string]string, field, msg string) {
	if *p == nil {
		*p = map[string]string{}
	}
	(*p)[field] = msg
}

func handleCheck(m *breakerserver.Manager, mt *metrics.Metrics, maxBytes int64, bufs *answerBuffers) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, ok := decode[checkRequest](w, r, maxBytes, false, bufs)
		if !ok {
			return
		}
		d, err := m.Check(r.Context(), req.Context)
		if err != nil {
			managerError(w, err)
			return
		}
		if mt != nil {
			mt.Check(d)
		}
		encodeDecision(w, d, bufs)
	})
}

// outcomeRequest reports how a decision turned out.
type outcomeRequest struct {
	DecisionID string           `json:"decision_id"`
	Result     lb.OutcomeResult `json:"result"`
	Reason     string           `json:"reason,omitempty"`
	Context    scoped.Context   `json:"context"`
}

func (r outcomeRequest) problems() map[string]string {
	p := prefixed("context.", r.Context.Problems())
	if msg := breakerserver.ValidDecisionID(r.DecisionID); msg != "" {
		addProblem(&p, "decision_id", msg)
	}
	if !r.Result.Valid() {
		addProblem(&p, "result", fmt.Sprintf("is %q; want success, failure, abandoned or partial", r.Result))
	}
	if len(r.Reason) > 2000 {
		addProblem(&p, "reason", "is longer than 2000 bytes; shorten it")
	}
	return p
}

func handleOutcome(m *breakerserver.Manager, mt *metrics.Metrics, maxBytes int64, bufs *answerBuffers) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, ok := decode[outcomeRequest](w, r, maxBytes, false, bufs)
		if !ok {
			return
		}
		d, err := m.Outcome(r.Context(), req.Context, lb.Outcome{DecisionID: req.DecisionID, Result: req.Result, Reason: req.Reason})
		if err != nil {
			managerError(w, err)
			return
		}
		if mt != nil {
			mt.Outcome(req.Result)
		}
		encodeDecision(w, d, bufs)
	})
}

type listResponse struct {
	Time     time.Time               `json:"time"`
	Breakers []breakerserver.Breaker `json:"breakers"`
	// Next, when set, is the after= of the next page.
	Next string `json:"next,omitempty"`
}

// MaxListPage is the most breakers one GET /v1/breakers answers (its
// default limit).
const MaxListPage = 1000

func handleListBreakers(m *breakerserver.Manager, now func() time.Time) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		limit := MaxListPage
		if v := q.Get("limit"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > MaxListPage {
				writeError(w, http.StatusUnprocessableEntity, "invalid_request",
					fmt.Sprintf("limit=%q: want a number from 1 to %d", v, MaxListPage), map[string]string{"limit": fmt.Sprintf("must be 1 to %d", MaxListPage)})
				return
			}
			limit = n
		}
		// Only the page's breakers are read (and never under the
		// manager's lock for all of them).
		bs, next, err := m.ListPage(r.Context(), q.Get("after"), limit)
		if err != nil {
			managerError(w, err)
			return
		}
		resp := listResponse{Time: now().UTC(), Breakers: bs, Next: next}
		encode(w, http.StatusOK, resp)
	})
}

func handleGetBreaker(m *breakerserver.Manager) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := m.Get(r.Context(), r.PathValue("scope"))
		if err != nil {
			managerError(w, err)
			return
		}
		encode(w, http.StatusOK, b)
	})
}

// resetRequest is a person's reset; the body may be empty (force).
type resetRequest struct {
	// Mode is "force" (to CLOSED, the default) or "probe_first" (to
	// HALF_OPEN, one probe decides).
	Mode     string `json:"mode,omitempty"`
	By       string `json:"by,omitempty"`
	Reason   string `json:"reason,omitempty"`
	Guidance string `json:"guidance,omitempty"`
}

func (r resetRequest) problems() map[string]string {
	p := map[string]string{}
	if r.Mode != "" && r.Mode != "force" && r.Mode != "probe_first" {
		p["mode"] = fmt.Sprintf("is %q; want force (to CLOSED) or probe_first (to HALF_OPEN, one probe decides)", r.Mode)
	}
	for field, v := range map[string]string{"by": r.By, "reason": r.Reason, "guidance": r.Guidance} {
		if len(v) > 4000 {
			p[field] = "is longer than 4000 bytes; shorten it"
		}
	}
	return p
}

func handleReset(m *breakerserver.Manager, maxBytes int64, bufs *answerBuffers, origin func(*http.Request) (string, string)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, ok := decode[resetRequest](w, r, maxBytes, true, bufs)
		if !ok {
			return
		}
		by := req.By
		if by == "" {
			by = "admin"
		}
		from := "HTTP from " + r.RemoteAddr
		if origin != nil {
			var agent string
			if from, agent = origin(r); agent != "" {
				writeError(w, http.StatusForbidden, "reset_under_agent",
					"reset refused: the request comes from a process under an agent, "+agent+". The agent under guard does not reset its own breaker. "+
						"A person resets it from outside the agent session: the dashboard, or a terminal of their own", nil)
				return
			}
		}
		b, err := m.Reset(r.Context(), r.PathValue("scope"), lb.Reset{
			ProbeFirst: req.Mode == "probe_first", By: by, Reason: req.Reason, Guidance: req.Guidance, From: from,
		})
		if err != nil {
			managerError(w, err)
			return
		}
		encode(w, http.StatusOK, b)
	})
}

func handleHealthz(m *breakerserver.Manager) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := m.Health(); err != nil {
			if errors.Is(err, breakerserver.ErrDegraded) {
				encode(w, http.StatusServiceUnavailable, map[string]string{"status": "degraded", "error": err.Error()})
				return
			}
			managerError(w, err)
			return
		}
		encode(w, http.StatusOK, map[string]string{"status": "ok"})
	})
}

//go:embed openapi.yaml
var openAPI []byte

// OpenAPI returns the API's OpenAPI 3.1 description.
func OpenAPI() []byte { return openAPI }

func handleOpenAPI() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/yaml")
		_, _ = w.Write(openAPI)
	})
}

func handleMethodNotAllowed(allowed string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", allowed)
		writeError(w, http.StatusMethodNotAllowed, "method_not_allowed",
			fmt.Sprintf("%s %s is not supported: use %s", r.Method, r.URL.Path, allowed), nil)
	})
}

func handleNotFound() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "not_found",
			fmt.Sprintf("no endpoint %s %s: the API is described at /openapi.yaml", r.Method, r.URL.Path), nil)
	})
}
