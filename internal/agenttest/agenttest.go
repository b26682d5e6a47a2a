// Package agenttest holds what the agent packages' tests share: the real
// hook payloads each CLI sent, recorded in hook/testdata.
package agenttest

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/hook"
)

// Root is the project of the real payloads: a Go module example.com/calc
// with failing tests TestAdd (and TestMul, TestSub).
const Root = "/home/dev/calc"

// Dir is hook/testdata: one folder of real payloads per CLI version.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "hook", "testdata")
}

// Fixture parses the real payload name of testdata folder dir as a's;
// event is the event its command line names ("" when the payload names
// it).
func Fixture(t *testing.T, a agent.Agent, dir, name, event string) *hook.Payload {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(Dir(), dir, name))
	if err != nil {
		t.Fatal(err)
	}
	p, err := a.Parse(event, data)
	if err != nil {
		t.Fatalf("%s/%s: %v", dir, name, err)
	}
	return p
}
