package hookpolicy

import (
	lb "github.com/loopbreaker/loopbreaker"
)

// noteFailingTest remembers the most recently failing test, for scope
// violations (which count against it); a test that passes again is
// forgotten.
func (c *call) noteFailingTest(tests []lb.TestResult) {
	for _, t := range tests {
		if !t.Passed && !t.Infra && t.Name != "" {
			if m := c.tx.Peek(); m == nil || m.FailingTest != t.Name {
				c.tx.Memory().FailingTest = t.Name
			}
			return
		}
	}
	m := c.tx.Peek()
	if m == nil || m.FailingTest == "" {
		return
	}
	for _, t := range tests {
		if t.Name == m.FailingTest && t.Passed {
			c.tx.Memory().FailingTest = ""
		}
	}
}

// lastFailingTest is the most recently failing test: the one noted by the
// last tool call that saw a failure, else the current slice's test with
// the most failed attempts.
func (c *call) lastFailingTest() string {
	st := c.tx.State()
	if m := st.Session; m != nil && m.FailingTest != "" {
		return m.FailingTest
	}
	best := -1
	for i, t := range st.Tests {
		if t.Slice == st.Slice && !t.Passed && t.Failed > 0 && (best < 0 || t.Failed >= st.Tests[best].Failed) {
			best = i
		}
	}
	if best >= 0 {
		return st.Tests[best].Name
	}
	return ""
}
