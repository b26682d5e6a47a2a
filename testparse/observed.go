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
