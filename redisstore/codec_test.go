package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/internal/redistest"
	"github.com/loopbreaker/loopbreaker/internal/storetest"
)

// viaJSON is st after a round trip through encoding/json: what layout 1
// gives back (times in UTC, no monotonic reading).
func viaJSON(t *testing.T, st *lb.BreakerState) *lb.BreakerState {
	t.Helper()
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var out lb.BreakerState
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return &out
}

// A state decodes to exactly what encoding/json's round trip gives, for
// every field, and for the times that stay strings (an offset, out of
// int64 range) and the zero time.
func TestCompactLayoutRoundTrip(t *testing.T) {
	var st lb.BreakerState
	fill(t, reflect.ValueOf(&st).Elem(), 0)
	paris := time.FixedZone("CET", 3600)
	opened := time.Date(2026, 11, 21, 10, 0, 0, 123456789, paris)
	st.OpenedAt = &opened
	st.LastProgressAt = time.Date(2500, 1, 1, 0, 0, 0, 0, time.UTC) // past int64 ns
	st.UpdatedAt = time.Now()                                       // Local, monotonic
	st.Attempts[1].Time = time.Time{}
	st.Attempts[0].Time = time.Unix(0, 0).UTC() // the epoch is not the zero time
	// attempts that encodeAttempt leaves to the generic encoder
	odd := st.Attempts[0]
	odd.Time = opened
	bad := st.Attempts[0]
	bad.Summary = "not \xff UTF-8"
	st.Attempts = append(st.Attempts, odd, bad)

	v, err := encodeValue("tok", &st)
	if err != nil {
		t.Fatal(err)
	}
	_, body, _ := strings.Cut(v, "\n")
	// Each name once in each object: a repeated one decodes (the last
	// wins), but every reader parses it and every record stores it.
	if !jsontext.Value(body).IsValid() {
		t.Fatalf("not valid I-JSON (RFC 7493: a name twice in an object?):\n%s", body)
	}
	var got lb.BreakerState
	if err := decodeState([]byte(body), &got); err != nil {
		t.Fatalf("does not decode: %v\n%s", err, body)
	}
	if want := viaJSON(t, &st); !reflect.DeepEqual(&got, want) {
		t.Fatalf("decodes to\n%+v\nwant (as encoding/json)\n%+v", got, *want)
	}
	if strings.Contains(v, `"updated_at":"`) || !strings.Contains(v, `"opened_at":"2026-11-21T10:00:00.123456789+01:00"`) {
		t.Fatalf("layout 2 should write UTC times as integers and keep an offset as a string:\n%s", v)
	}
	if plain, _ := json.Marshal(&st); len(body) >= len(plain) {
		t.Fatal("layout 2 is not smaller than what encoding/json writes")
	}
}

// A new prefix gets layout 2, and a snapshot in a trimmed journal
// decodes; a prefix in layout 1 is refused.
func TestLayouts(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{})
	ctx := context.Background()

	s := open(t, srv, Options{URL: srv.URL() + "?prefix=new", MaxEntries: 10})
	stamped := func(states []*lb.BreakerState) ([][]lb.JournalEntry, error) {
		states[0].UpdatedAt = time.Now().UTC()
		return storetest.Iterate("x")(states)
	}
	for range 300 {
		storetest.MustUpdate(t, s, stamped, "global")
	}
	if got, _ := s.Client().Get(ctx, "{new}:schema").Result(); got != SchemaVersion {
		t.Fatalf("a new prefix has layout %q, want %q", got, SchemaVersion)
	}
	raw, _ := s.Client().Get(ctx, "{new}:s:global").Result()
	var old lb.BreakerState
	if _, body, _ := strings.Cut(raw, "\n"); json.Unmarshal([]byte(body), &old) == nil {
		t.Fatalf("a layout-2 value decodes with encoding/json: it is not compact:\n%s", raw)
	}
	es, err := s.Journal(ctx, "global", 0)
	if err != nil {
		t.Fatal(err)
	}
	snap := false
	for _, e := range es {
		if e.Type == lb.EntrySnapshot && e.Snapshot != nil && e.Snapshot.Iterations > 0 {
			snap = true
		}
	}
	if !snap {
		t.Fatalf("the trimmed layout-2 journal holds no snapshot that decodes (%d entries)", len(es))
	}

	// A prefix in layout 1 (plain encoding/json, never released) is
	// refused, not read.
	s.Client().Set(ctx, "{old}:schema", "1", 0)
	o := open(t, srv, Options{URL: srv.URL() + "?prefix=old"})
	if err := o.Update(ctx, []string{"global"}, storetest.Iterate("x")); !errors.Is(err, ErrSchema) {
		t.Fatalf("Update over layout 1: %v; want ErrSchema", err)
	}
}

// A state value cut short anywhere, or with a member of the wrong type,
// does not decode: decoding streams (no validation pass first), so what
// it decoded before the fault is dropped with the error.
func TestBrokenStateBodyDoesNotDecode(t *testing.T) {
	var st lb.BreakerState
	fill(t, reflect.ValueOf(&st).Elem(), 0)
	st.UpdatedAt = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	v, err := encodeValue("tok", &st)
	if err != nil {
		t.Fatal(err)
	}
	_, body, _ := strings.Cut(v, "\n")
	for n := range len(body) {
		var got lb.BreakerState
		if err := decodeState([]byte(body[:n]), &got); err == nil {
			t.Fatalf("the first %d of %d bytes decoded without an error", n, len(body))
		}
	}
	for _, bad := range []string{`"iterations":"2"`, `"seq":-1`, `"updated_at":true`, `"state":5`} {
		name, _, _ := strings.Cut(bad, ":")
		i := strings.Index(body, name+":")
		if i < 0 {
			t.Fatalf("no %s in %s", name, body)
		}
		j := i + len(name) + 1
		end := j + strings.IndexAny(body[j:], ",}") // a scalar member's end
		broken := body[:i] + bad + body[end:]
		var got lb.BreakerState
		if err := decodeState([]byte(broken), &got); err == nil {
			t.Errorf("%s decoded without an error", bad)
		}
	}
}
