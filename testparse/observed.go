package testparse

// Every result a parser returns is Observed: it comes from a whole test
// run, which shows every test rather than the one the agent worked on. The
// engine counts such a failure as an attempt only when the test was seen
// failing before and nothing improved in the run.

func observed(r Result, ok bool) (Result, bool) {
	for i := range r.Tests {
		r.Tests[i].Observed = true
	}
	return r, ok
}

// Parse detects the format of output and parses it; false when no test
// output is recognised.
func Parse(output []byte) (Result, bool) { return observed(parse(output)) }

// ParseGo parses `go test` text output (plain or -v).
func ParseGo(output []byte) (Result, bool) { return observed(parseGo(output)) }

// ParseGoJSON parses `go test -json` output.
func ParseGoJSON(output []byte) (Result, bool) { return observed(parseGoJSON(output)) }

// ParsePytest parses pytest's terminal output.
func ParsePytest(output []byte) (Result, bool) { return observed(parsePytest(output)) }

// ParseJest parses jest's and vitest's output (default reporters and --json).
func ParseJest(output []byte) (Result, bool) { return observed(parseJest(output)) }

// ParseCargo parses `cargo test` output.
func ParseCargo(output []byte) (Result, bool) { return observed(parseCargo(output)) }

// ParseJUnitXML parses JUnit XML reports.
func ParseJUnitXML(output []byte) (Result, bool) { return observed(parseJUnitXML(output)) }
