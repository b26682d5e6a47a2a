package httpapi

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/breakerserver"
)

// fill sets every field reachable from v to a value that is not zero,
// varied by seed, so that a field added to a decision's types shows up
// in encoding/json's output and not in the hand-written one.
func fill(v reflect.Value, seed int) {
	switch v.Kind() {
	case reflect.String:
		texts := []string{"agent:bob", `quote " back \ slash`, "<tag> & amp", "tab\tnew\nline\x01", "日本語 \u2028 sep", "bad \xff utf8"}
		v.SetString(texts[seed%len(texts)])
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(int64(seed*37 + 1))
	case reflect.Uint, reflect.Uint64, reflect.Uint32:
		v.SetUint(uint64(seed*37 + 1))
	case reflect.Float64:
		fs := []float64{3600, 0.5, 1e-7, 1.5e21, 12.25}
		v.SetFloat(fs[seed%len(fs)])
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), seed+1)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			fill(s.Index(i), seed+i+1)
		}
		v.Set(s)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Date(2026, 11, 21, 9, seed%60, 7, seed*1000+123, time.UTC)))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), seed+i)
			}
		}
	}
}

func TestDecisionJSONMatchesEncodingJSON(t *testing.T) {
	now := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	cases := map[string]breakerserver.Decision{
		"zero": {},
		"typical": {DecisionID: "d-1", Allowed: true, State: lb.Closed, Scope: "global", Breakers: []breakerserver.BreakerDecision{
			{Breaker: breakerserver.Breaker{Scope: "global", State: lb.Closed, Kind: "configured", RecentFailures: []lb.Failure{}, WindowSeconds: 3600, UpdatedAt: now}, Allowed: true},
		}},
	}
	for seed := range 6 {
		var d breakerserver.Decision
		fill(reflect.ValueOf(&d).Elem(), seed)
		cases["filled-"+string(rune('a'+seed))] = d
	}
	for name, d := range cases {
		var want bytes.Buffer
		if err := json.NewEncoder(&want).Encode(d); err != nil {
			t.Fatal(err)
		}
		got := append(appendDecision(nil, &d), '\n')
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want.Bytes())
		}
	}
}

// The hand-written answer decodes to the same decision.
func TestDecisionJSONRoundTrips(t *testing.T) {
	var d breakerserver.Decision
	fill(reflect.ValueOf(&d).Elem(), 3)
	var back breakerserver.Decision
	dec := json.NewDecoder(strings.NewReader(string(appendDecision(nil, &d))))
	if err := dec.Decode(&back); err != nil {
		t.Fatal(err)
	}
	if back.DecisionID != d.DecisionID || len(back.Breakers) != len(d.Breakers) || back.Breakers[1].Counter.Name != d.Breakers[1].Counter.Name {
		t.Fatalf("round trip: %+v", back)
	}
}
