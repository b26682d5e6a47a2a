package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/breakerserver"
	"github.com/loopbreaker/loopbreaker/filestore"
	"github.com/loopbreaker/loopbreaker/metrics"
	"github.com/loopbreaker/loopbreaker/scoped"
)

// BenchmarkHandler is the server's own work per request, without HTTP
// transport: the whole handler chain (headers, metrics, decode, breakers,
// write-ahead log, encode) called in this goroutine. Its allocs/op are
// what the garbage collector pays per request.
//
//	go test ./httpapi -run '^$' -bench Handler -benchmem
func BenchmarkHandler(b *testing.B) {
	cfg := lb.Defaults()
	cfg.Breakers = []lb.BreakerConfig{
		{Scope: "global", FailureThreshold: lb.MaxFailureThreshold, Window: time.Second, Cooldown: time.Minute},
		{Scope: "category:tooling", FailureThreshold: lb.MaxFailureThreshold, Window: time.Second, Cooldown: time.Minute},
	}
	dir := filepath.Join(b.TempDir(), ".loopbreaker")
	st, err := filestore.Open(dir, filestore.Options{MaxJournalBytes: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	m, err := breakerserver.Open(context.Background(), st, cfg, breakerserver.Options{WALDir: filepath.Join(dir, "server-wal")})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	mt := metrics.New(metrics.Sources{Breakers: m.List, Health: m.Health})
	h := NewServer(Config{Manager: m, Metrics: mt, MaxBodyBytes: 1 << 20})
	ctx := scoped.Context{AgentID: "agent-1", Category: "tooling"}
	checkBody, _ := json.Marshal(map[string]any{"context": ctx})
	serve := func(path string, body []byte) *httptest.ResponseRecorder {
		r := httptest.NewRequest("POST", path, bytes.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			b.Fatalf("%s: %d %s", path, w.Code, w.Body)
		}
		return w
	}
	b.Run("check", func(b *testing.B) {
		for b.Loop() {
			serve("/v1/check", checkBody)
		}
	})
	b.Run("outcome", func(b *testing.B) {
		var d breakerserver.Decision
		if err := json.Unmarshal(serve("/v1/check", checkBody).Body.Bytes(), &d); err != nil {
			b.Fatal(err)
		}
		body, _ := json.Marshal(map[string]any{"decision_id": d.DecisionID, "result": lb.OutcomeSuccess, "context": ctx})
		for b.Loop() {
			serve("/v1/outcome", body)
		}
	})
}
