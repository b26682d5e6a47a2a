// Package testparse turns the output of test runners into per-test results,
// so that the breaker can count attempts per test
// from what an agent's test command printed, without the agent's help.
//
// It reads go test (text and -json), pytest, jest, vitest (text and --json),
// cargo test and JUnit XML. Failures of the infrastructure (the code did not
// compile, the runner is not installed, a test file could not be imported)
// are told apart from failed tests: they are not attempts at a test.
//
// Parsing never panics and never needs more than a few kilobytes per test
// beyond the input: messages are capped at MaxMessage bytes.
package testparse

import (
	"slices"
	"strings"

	"github.com/loopbreaker/loopbreaker"
)

// Framework names reported in Result.Framework.
const (
	FrameworkGo     = "go"
	FrameworkGoJSON = "go-json"
	FrameworkPytest = "pytest"
	FrameworkJest   = "jest"
	FrameworkVitest = "vitest"
	FrameworkCargo  = "cargo"
	FrameworkJUnit  = "junit"
)

// Infrastructure kinds reported in Infrastructure.Kind.
const (
	// InfraBuild: the code or the tests did not compile.
	InfraBuild = "build"
	// InfraCommandNotFound: the runner itself is not installed or not on PATH.
	InfraCommandNotFound = "command_not_found"
	// InfraCollection: a test file could not be loaded (import error,
	// missing module, syntax error in a test file).
	InfraCollection = "collection"
	// InfraSetup: the runner could not start (no module, missing
	// dependency, bad arguments, internal error of the runner).
	InfraSetup = "setup"
)

// Result is what one run of a test command reported.
type Result struct {
	// Framework is one of the Framework* constants; empty when only a shell
	// error (command not found) was recognised and the runner is unknown.
	Framework string
	// Tests holds one entry per test, in the order the runner reported them.
	// Skipped tests are only counted. An entry with Infra set stands for a
	// package, file or crate that could not be built or loaded: its tests
	// were not attempted. Which tests are listed depends on the runner's
	// verbosity: without -v, go test and pytest name only failed tests, and
	// go test names a passing package instead of its tests.
	Tests []loopbreaker.TestResult
	// Passed, Failed and Skipped are the runner's own totals when it prints
	// them (pytest, jest, vitest, cargo), else counted from Tests. Failed
	// never includes infrastructure failures.
	Passed, Failed, Skipped int
	// Infra is set when some part of the run failed before testing anything
	// meaningful (see the Infra* kinds); such failures are not attempts.
	// When other parts did run, their results are still in Tests and count.
	Infra *Infrastructure
}

// Infrastructure describes a failure of the run rather than of a test.
type Infrastructure struct {
	Kind    string
	Message string
}

// Parse detects the format of output and parses it. It returns false when
// nothing in output looks like test runner output or a runner that could not
// be started. When the output holds several line-based runners one after the
// other (a Makefile running go test then jest), their results are merged and
// Framework names the first.
func parse(output []byte) (Result, bool) {
	formats := detect(output)
	var merged Result
	found := false
	for _, f := range formats {
		r, ok := parseAs(f, output)
		if !ok {
			continue
		}
		if !found {
			merged = r
			found = true
			continue
		}
		merged.Tests = append(merged.Tests, r.Tests...)
		merged.Passed += r.Passed
		merged.Failed += r.Failed
		merged.Skipped += r.Skipped
		if merged.Infra == nil {
			merged.Infra = r.Infra
		}
	}
	if found {
		return merged, true
	}
	// No runner output at all: perhaps the runner never started.
	var c collector
	scanShell(&c, output)
	return c.result()
}

func parseAs(format string, output []byte) (Result, bool) {
	switch format {
	case FrameworkGo:
		return parseGo(output)
	case FrameworkGoJSON:
		return parseGoJSON(output)
	case FrameworkPytest:
		return parsePytest(output)
	case FrameworkJest, FrameworkVitest:
		return parseJest(output)
	case FrameworkCargo:
		return parseCargo(output)
	case FrameworkJUnit:
		return parseJUnitXML(output)
	}
	return Result{}, false
}

// collector gathers results while a parser runs. Names reported twice (a
// pytest test that passed then errored in teardown, jest's closing summary of
// failures) are merged: a failure wins over a pass.
type collector struct {
	framework  string
	recognised bool
	// Results are kept in fixed-size chunks and copied once at the end:
	// growing one slice of a million results would copy it again and again.
	chunks  [][]loopbreaker.TestResult
	n       int
	index   map[string]int
	skipped int

	// Totals printed by the runner, when it prints them.
	summary              bool
	sumPassed, sumFailed int
	sumSkipped           int
	infra                *Infrastructure
	infraMsg             capText
	shellInfra           *Infrastructure
	shellFramework       string

	// unit is the unit (test target) results are added to when they name
	// none; passUnits are units seen passing as a whole (a "PASS file"
	// line), which get an entry of their own when no test names them.
	unit      string
	passUnits []string
}

func (c *collector) add(name string, passed bool, message string) {
	c.put(loopbreaker.TestResult{Name: name, Passed: passed, Message: message})
}

// addIn adds a result of a known unit.
func (c *collector) addIn(unit, name string, passed bool, message string) {
	c.put(loopbreaker.TestResult{Name: name, Passed: passed, Message: message, Unit: unit})
}

// passUnit notes a unit that ran with no failure (named or not).
func (c *collector) passUnit(unit string) {
	c.recognised = true
	if unit != "" && !slices.Contains(c.passUnits, unit) {
		c.passUnits = append(c.passUnits, unit)
	}
}

func (c *collector) put(t loopbreaker.TestResult) {
	c.recognised = true
	if t.Unit == "" {
		t.Unit = c.unit
	}
	if c.index == nil {
		c.index = make(map[string]int)
	}
	i, seen := c.index[t.Name]
	if !seen {
		c.index[t.Name] = c.n
		if c.n%chunkSize == 0 {
			size := chunkSize
			if len(c.chunks) == 0 {
				size = 64 // most runs have a few tests; the first chunk grows as needed
			}
			c.chunks = append(c.chunks, make([]loopbreaker.TestResult, 0, size))
		}
		last := &c.chunks[len(c.chunks)-1]
		*last = append(*last, t)
		c.n++
		return
	}
	old := c.at(i)
	switch {
	case old.Infra && !t.Infra:
		// A real result beats "could not load".
		*old = t
	case !t.Infra && old.Passed && !t.Passed:
		*old = t
	case !t.Passed && old.Message == "" && t.Message != "":
		old.Message = t.Message
	}
}

// message sets the message of an already reported failure, if it has none.
func (c *collector) message(name, message string) bool {
	i, ok := c.index[name]
	if !ok {
		return false
	}
	if t := c.at(i); !t.Passed && t.Message == "" {
		t.Message = message
	}
	return true
}

const chunkSize = 4096

func (c *collector) at(i int) *loopbreaker.TestResult {
	return &c.chunks[i/chunkSize][i%chunkSize]
}

// each calls fn with every result so far, in order.
func (c *collector) each(fn func(*loopbreaker.TestResult)) {
	for _, chunk := range c.chunks {
		for i := range chunk {
			fn(&chunk[i])
		}
	}
}

func (c *collector) skip() {
	c.recognised = true
	c.skipped++
}

// infraFailure records an infrastructure failure of the whole run (name
// empty) or of one package/file/crate (name set, which also adds an entry).
func (c *collector) infraFailure(kind, name, message string) {
	c.recognised = true
	if name != "" {
		c.put(loopbreaker.TestResult{Name: name, Infra: true, Message: message, Unit: name})
	}
	if c.infra == nil {
		c.infra = &Infrastructure{Kind: kind}
	} else {
		c.infraMsg.addString("\n")
	}
	if name != "" && !strings.Contains(message, name) {
		c.infraMsg.addString(name + ": ")
	}
	c.infraMsg.addString(message)
	c.infraMsg.addString("\n")
}

func (c *collector) result() (Result, bool) {
	r := Result{Framework: c.framework, Skipped: c.skipped}
	if c.n > 0 {
		r.Tests = make([]loopbreaker.TestResult, 0, c.n)
	}
	for _, chunk := range c.chunks {
		r.Tests = append(r.Tests, chunk...)
	}
	for _, t := range r.Tests {
		switch {
		case t.Infra:
		case t.Passed:
			r.Passed++
		default:
			r.Failed++
		}
	}
	if c.summary {
		r.Passed, r.Failed, r.Skipped = c.sumPassed, c.sumFailed, c.sumSkipped
	}
	c.units(&r)
	if c.infra != nil {
		r.Infra = &Infrastructure{Kind: c.infra.Kind, Message: c.infraMsg.String()}
	}
	// A shell error only explains a run that produced nothing else: a test
	// that runs a missing command prints the same words.
	if c.n == 0 && r.Infra == nil && c.shellInfra != nil {
		r.Infra = c.shellInfra
		if r.Framework == "" {
			r.Framework = c.shellFramework
		}
		return r, true
	}
	return r, c.recognised || c.n > 0 || r.Infra != nil
}

// units fills in the unit of each result whose parser left it out but
// whose name carries it (pytest's "file::test", jest's "file › test"),
// and adds an entry for each unit that passed without naming a test
// (jest's "PASS file", pytest's "file ...."), so that a reader of the
// result knows which units ran. Such entries are not counted as passed
// tests: the runner's totals or the named tests count.
func (c *collector) units(r *Result) {
	sep := ""
	switch c.framework {
	case FrameworkPytest:
		sep = "::"
	case FrameworkJest, FrameworkVitest:
		sep = " › "
	}
	for i := range r.Tests {
		t := &r.Tests[i]
		if t.Unit != "" || sep == "" {
			continue
		}
		if u, _, ok := strings.Cut(t.Name, sep); ok && u != "" {
			t.Unit = u
		}
	}
	for _, u := range c.passUnits {
		named := false
		for i := range r.Tests {
			if r.Tests[i].Unit == u {
				named = true
				break
			}
		}
		if !named {
			r.Tests = append(r.Tests, loopbreaker.TestResult{Name: u, Unit: u, Passed: true})
		}
	}
}
