package httpapi

import (
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/breakerserver"
	"github.com/loopbreaker/loopbreaker/scoped"
)

// Bodies parseFlat takes and bodies it leaves to encoding/json.
var flatSeeds = []string{
	`{"context":{"agent_id":"agent-1","category":"tooling"}}`,
	` { "context" : { "agent_id" : "a" , "tags" : [ "x" , "y" ] , "session" : "s" , "slice" : "1" , "stakes" : "high" } } ` + "\n",
	`{"decision_id":"d-abc","result":"failure","reason":"it broke","context":{"agent_id":"a"}}`,
	`{"context":{"tags":[]}}`,
	`{}`,
	`{"context":{}}`,
	`{"Context":{"agent_id":"a"}}`,
	`{"context":{"AGENT_ID":"a"}}`,
	`{"context":{"agent_id":"a"},"context":{"category":"b"}}`,
	`{"context":{"agent_id":"a","agent_id":"b"}}`,
	`{"context":{"agent_id":"a\u00e9"}}`,
	`{"context":{"agent_id":"é"}}`,
	`{"context":{"agent_id":"a\"b"}}`,
	`{"context":null}`,
	`{"context":{"tags":null}}`,
	`{"context":{"agent_id":1}}`,
	`{"decision_id":"d-1"}`,
	`{"context":{"agent_id":"a"}}{}`,
	`{"context":{"agent_id":"a"}} x`,
	`{"context":{"agent_id":"a"},}`,
	`{"context":{"agent_id":"a"}`,
	`{"context":{"bogus":"a"}}`,
	`{"bogus":"a"}`,
	`[]`,
	``,
	"{\"context\":{\"agent_id\":\"a\tb\"}}",
}

// What parseFlat takes, it reads as encoding/json (strict, one value)
// does; what it leaves, encoding/json decides.
func FuzzFlatMatchesEncodingJSON(f *testing.F) {
	for _, s := range flatSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		compareFlat[checkRequest](t, data)
		compareFlat[outcomeRequest](t, data)
	})
}

func compareFlat[T any, P interface {
	*T
	flatRequest
}](t *testing.T, data []byte) {
	t.Helper()
	var flat T
	if !parseFlat(data, P(&flat)) {
		return
	}
	want, ok := decodeJSON[T](httptest.NewRecorder(), data, nil, 1<<20, false)
	if !ok {
		t.Fatalf("%T: parseFlat took %q, encoding/json refuses it", flat, data)
	}
	if !reflect.DeepEqual(flat, want) {
		t.Fatalf("%T of %q: parseFlat read %+v, encoding/json %+v", flat, data, flat, want)
	}
}

// The bodies clients send (encoding/json's output for plain values) take
// the fast path.
func TestPlainBodiesAreReadWithoutEncodingJSON(t *testing.T) {
	ctx := scoped.Context{AgentID: "agent-7", Category: "tooling", Session: "s-1", Slice: "2", Stakes: "low", Tags: []string{"a", "b"}}
	check, _ := json.Marshal(checkRequest{Context: ctx})
	outcome, _ := json.Marshal(outcomeRequest{DecisionID: breakerserver.NewDecisionID(), Result: lb.OutcomeFailure, Reason: "tests fail", Context: ctx})
	var c checkRequest
	var o outcomeRequest
	if !parseFlat(check, &c) || !reflect.DeepEqual(c.Context, ctx) {
		t.Errorf("check %s: not read by parseFlat (%+v)", check, c)
	}
	if !parseFlat(outcome, &o) || o.Result != lb.OutcomeFailure || o.Reason != "tests fail" || !reflect.DeepEqual(o.Context, ctx) {
		t.Errorf("outcome %s: not read by parseFlat (%+v)", outcome, o)
	}
	for _, s := range flatSeeds {
		compareFlat[checkRequest](t, []byte(s))
		compareFlat[outcomeRequest](t, []byte(s))
	}
}
