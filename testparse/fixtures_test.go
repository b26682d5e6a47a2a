package testparse

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// tw is what a fixture must report for one test.
type tw struct {
	passed bool
	infra  bool
	msg    []string // substrings of the message
	notMsg []string // must not be in the message
}

var (
	pass = tw{passed: true}
	fail = func(msg ...string) tw { return tw{msg: msg} }
	brok = func(msg ...string) tw { return tw{infra: true, msg: msg} }
)

type fixture struct {
	file      string
	parse     func([]byte) (Result, bool)
	framework string
	passed    int
	failed    int
	skipped   int
	infra     string // Result.Infra.Kind, "" for none
	infraMsg  string
	tests     map[string]tw // exactly the tests reported
}

const (
	calc     = "example.com/demo/calc."
	parallel = "example.com/demo/parallel."
)

var fixtures = []fixture{
	{
		file: "go_text.txt", parse: observedBy(parseGo), framework: FrameworkGo,
		passed: 1, failed: 8, infra: InfraSetup, infraMsg: "no required module provides package",
		tests: map[string]tw{
			calc + "TestSub":                           fail("calc_test.go:13: Sub(5, 3) = 8, want 2", "checked Sub"),
			calc + "TestTable/negative":                fail("Add(-1, -1) = -2, want -3\n    second line of detail"),
			calc + "TestNested/outer/inner_bad":        fail("inner failure"),
			calc + "TestParentOwn/child":               {msg: []string{"child failed"}, notMsg: []string{"parent failed"}},
			"example.com/demo/example.ExampleGreeting": fail("got:\nhello\nwant:\nhello, world"),
			"example.com/demo/panicky.TestOutOfRange":  fail("panic: runtime error: index out of range [3] with length 0"),
			parallel + "TestParallel/worker_3":         {msg: []string{"worker 3 step 0", "worker 3 failed"}, notMsg: []string{"worker 1"}},
			parallel + "TestParallel/worker_1":         {msg: []string{"worker 1 failed"}, notMsg: []string{"worker 3"}},
			"example.com/demo/timeout":                 pass,
			"example.com/demo/missingdep":              brok("example.org/not/there"),
			"example.com/demo/broken":                  brok("undefined: undefinedThing", "cannot use Double(2)"),
		},
	},
	{
		file: "go_verbose.txt", parse: observedBy(parseGo), framework: FrameworkGo,
		passed: 5, failed: 6, skipped: 1,
		tests: map[string]tw{
			calc + "TestAdd":                           pass,
			calc + "TestSub":                           fail("Sub(5, 3) = 8, want 2"),
			calc + "TestTable/zero":                    pass,
			calc + "TestTable/positive_numbers":        pass,
			calc + "TestTable/negative":                fail("Add(-1, -1) = -2, want -3", "second line of detail"),
			calc + "TestNested/outer/inner_ok":         pass,
			calc + "TestNested/outer/inner_bad":        fail("inner failure"),
			calc + "TestParentOwn/child":               {msg: []string{"child failed"}, notMsg: []string{"parent failed"}},
			"example.com/demo/panicky.TestFirst":       pass,
			"example.com/demo/panicky.TestOutOfRange":  fail("index out of range [3] with length 0"),
			"example.com/demo/example.ExampleGreeting": fail("want:\nhello, world"),
		},
	},
	{
		file: "go.json", parse: observedBy(parseGoJSON), framework: FrameworkGoJSON,
		passed: 8, failed: 8, skipped: 2, infra: InfraSetup, infraMsg: "example.org/not/there",
		tests: map[string]tw{
			calc + "TestAdd":                           pass,
			calc + "TestSub":                           {msg: []string{"calc_test.go:13: Sub(5, 3) = 8, want 2"}, notMsg: []string{"=== RUN", "--- FAIL"}},
			calc + "TestTable/zero":                    pass,
			calc + "TestTable/positive_numbers":        pass,
			calc + "TestTable/negative":                fail("Add(-1, -1) = -2, want -3\n    second line of detail"),
			calc + "TestNested/outer/inner_ok":         pass,
			calc + "TestNested/outer/inner_bad":        fail("inner failure"),
			calc + "TestParentOwn/child":               fail("child failed"),
			"example.com/demo/example.ExampleGreeting": fail("hello, world"),
			"example.com/demo/panicky.TestFirst":       pass,
			"example.com/demo/panicky.TestOutOfRange":  fail("index out of range [3] with length 0"),
			parallel + "TestParallel/worker_0":         pass,
			parallel + "TestParallel/worker_1":         {msg: []string{"worker 1 failed"}, notMsg: []string{"worker 3"}},
			parallel + "TestParallel/worker_2":         pass,
			parallel + "TestParallel/worker_3":         {msg: []string{"worker 3 failed"}, notMsg: []string{"worker 1"}},
			"example.com/demo/timeout.TestQuick":       pass,
			"example.com/demo/missingdep":              brok("no required module provides package example.org/not/there"),
			"example.com/demo/broken":                  brok("undefined: undefinedThing"),
		},
	},
	{
		file: "go_parallel.json", parse: observedBy(parseGoJSON), framework: FrameworkGoJSON, passed: 2, failed: 2,
		tests: map[string]tw{
			parallel + "TestParallel/worker_0": pass,
			parallel + "TestParallel/worker_1": {msg: []string{"worker 1 step 0", "worker 1 failed"}, notMsg: []string{"worker 0", "worker 2", "worker 3"}},
			parallel + "TestParallel/worker_2": pass,
			parallel + "TestParallel/worker_3": {msg: []string{"worker 3 step 2", "worker 3 failed"}, notMsg: []string{"worker 0", "worker 1", "worker 2"}},
		},
	},
	{
		file: "go_parallel_verbose.txt", parse: observedBy(parseGo), framework: FrameworkGo, passed: 2, failed: 2,
		tests: map[string]tw{
			parallel + "TestParallel/worker_0": pass,
			parallel + "TestParallel/worker_1": {msg: []string{"worker 1 step 0", "worker 1 failed"}, notMsg: []string{"worker 0", "worker 2", "worker 3"}},
			parallel + "TestParallel/worker_2": pass,
			parallel + "TestParallel/worker_3": {msg: []string{"worker 3 step 2", "worker 3 failed"}, notMsg: []string{"worker 0", "worker 1", "worker 2"}},
		},
	},
	{
		file: "go_timeout.txt", parse: observedBy(parseGo), framework: FrameworkGo, failed: 1,
		tests: map[string]tw{"example.com/demo/timeout.TestHangs": fail("panic: test timed out after 1s")},
	},
	{
		file: "go_timeout.json", parse: observedBy(parseGoJSON), framework: FrameworkGoJSON, passed: 1, failed: 1,
		tests: map[string]tw{
			"example.com/demo/timeout.TestQuick": pass,
			"example.com/demo/timeout.TestHangs": fail("panic: test timed out after 1s"),
		},
	},
	{
		file: "go_pass.txt", parse: observedBy(parseGo), framework: FrameworkGo, passed: 1,
		tests: map[string]tw{"example.com/demo/calc": pass},
	},
	{
		file: "go_build_failed.txt", parse: observedBy(parseGo), framework: FrameworkGo,
		infra: InfraBuild, infraMsg: "undefined: undefinedThing",
		tests: map[string]tw{"example.com/demo/broken": brok("broken_test.go:6:17: cannot use Double(2)", "undefined: undefinedThing")},
	},
	{
		file: "go_setup_failed.txt", parse: observedBy(parseGo), framework: FrameworkGo,
		infra: InfraSetup, infraMsg: "no required module provides package",
		tests: map[string]tw{
			"example.com/demo/missingdep": brok("go get example.org/not/there"),
			"./nonexistent":               brok("directory not found"),
		},
	},
	{
		file: "go_no_module.txt", parse: observedBy(parseGo), framework: FrameworkGo,
		infra: InfraSetup, infraMsg: "does not contain main module",
		tests: map[string]tw{"./...": brok("does not contain main module")},
	},
	{
		file: "pytest_default.txt", parse: observedBy(parsePytest), framework: FrameworkPytest,
		passed: 7, failed: 6, skipped: 2, tests: pytestFailures,
	},
	{
		file: "pytest_verbose.txt", parse: observedBy(parsePytest), framework: FrameworkPytest,
		passed: 7, failed: 6, skipped: 2, tests: merge(pytestFailures, pytestPasses),
	},
	{
		file: "pytest_color.txt", parse: observedBy(parsePytest), framework: FrameworkPytest,
		passed: 7, failed: 6, skipped: 2, tests: merge(pytestFailures, pytestPasses),
	},
	{
		file: "pytest_quiet.txt", parse: observedBy(parsePytest), framework: FrameworkPytest,
		passed: 6, failed: 5, skipped: 2, tests: without(pytestFailures, "tests/test_fixture.py::test_uses_db"),
	},
	{
		file: "pytest_collection_error.txt", parse: observedBy(parsePytest), framework: FrameworkPytest,
		infra: InfraCollection, infraMsg: "ModuleNotFoundError: No module named 'not_a_real_module'",
		tests: map[string]tw{"tests/test_broken.py": brok("ModuleNotFoundError: No module named 'not_a_real_module'")},
	},
	{
		file: "pytest_internalerror.txt", parse: observedBy(parsePytest), framework: FrameworkPytest,
		infra: InfraSetup, infraMsg: "RuntimeError: plugin exploded", tests: map[string]tw{},
	},
	{
		file: "pytest_not_installed.txt", parse: observedBy(parsePytest), framework: FrameworkPytest,
		infra: InfraCommandNotFound, infraMsg: "No module named pytest", tests: map[string]tw{},
	},
	{
		file: "pytest_junit.xml", parse: observedBy(parseJUnitXML), framework: FrameworkJUnit,
		passed: 7, failed: 6, skipped: 2,
		tests: map[string]tw{
			"tests.test_calc.test_add":                   pass,
			"tests.test_calc.test_sub":                   fail("assert 8 == 2", "tests/test_calc.py:12: AssertionError"),
			"tests.test_calc.TestCalc.test_add_negative": pass,
			"tests.test_calc.TestCalc.test_sub_negative": fail("sub(-1, -1) should be 0"),
			"tests.test_calc.test_param[1-2-3]":          pass,
			"tests.test_calc.test_param[2-2-5]":          fail("assert 4 == 5"),
			"tests.test_calc.test_param[0-0-0]":          pass,
			"tests.test_calc.test_ids[plain]":            pass,
			"tests.test_calc.test_ids[with space]":       pass,
			"tests.test_calc.test_ids[a/b::c]":           fail("'/' is contained here"),
			"tests.test_calc.test_raises":                fail("ValueError: bad value: 42"),
			"tests.test_fixture.test_uses_db":            fail("RuntimeError: db down"),
			"tests.test_fixture.test_ok":                 pass,
		},
	},
	{
		file: "pytest_junit_collection.xml", parse: observedBy(parseJUnitXML), framework: FrameworkJUnit,
		infra: InfraCollection, infraMsg: "No module named 'not_a_real_module'",
		tests: map[string]tw{"tests.test_broken": brok("collection failure", "ModuleNotFoundError")},
	},
	{
		file: "jest_default.txt", parse: observedBy(parseJest), framework: FrameworkJest,
		passed: 3, failed: 3, skipped: 2, infra: InfraCollection, infraMsg: "Cannot find module './does-not-exist'",
		tests: merge(jestFailures("sum.test.js"), map[string]tw{
			"broken.test.js": brok("Cannot find module './does-not-exist' from 'broken.test.js'"),
			"other.test.js":  pass, // "PASS other.test.js": the file ran, its tests unnamed
		}),
	},
	{
		file: "jest_verbose.txt", parse: observedBy(parseJest), framework: FrameworkJest,
		passed: 3, failed: 3, skipped: 2, infra: InfraCollection,
		tests: merge(jestFailures("sum.test.js"), jestPasses("sum.test.js", "other.test.js"), map[string]tw{
			"broken.test.js": brok("Cannot find module './does-not-exist'"),
		}),
	},
	{
		file: "jest_color.txt", parse: observedBy(parseJest), framework: FrameworkJest,
		passed: 2, failed: 3, skipped: 2,
		tests: merge(jestFailures("sum.test.js"), without(jestPasses("sum.test.js", "other.test.js"), "other.test.js › always passes")),
	},
	{
		file: "jest.json", parse: observedBy(parseJest), framework: FrameworkJest,
		passed: 3, failed: 3, skipped: 2, infra: InfraCollection, infraMsg: "Test suite failed to run",
		tests: merge(jestFailures("js/jestproj/sum.test.js"), jestPasses("js/jestproj/sum.test.js", "js/jestproj/other.test.js"), map[string]tw{
			"js/jestproj/broken.test.js": brok("Cannot find module './does-not-exist'"),
		}),
	},
	{
		file: "vitest_default.txt", parse: observedBy(parseJest), framework: FrameworkVitest,
		passed: 3, failed: 3, skipped: 2, infra: InfraCollection, infraMsg: "Cannot find module './does-not-exist.js'",
		tests: merge(vitestFailures("sum.test.js"), map[string]tw{
			"broken.test.js": brok("Cannot find module './does-not-exist.js'"),
			"other.test.js":  pass, // "✓ other.test.js (1 test)": the file ran, its tests unnamed
		}),
	},
	{
		file: "vitest_color.txt", parse: observedBy(parseJest), framework: FrameworkVitest,
		passed: 3, failed: 3, skipped: 2, infra: InfraCollection,
		tests: merge(vitestFailures("sum.test.js"), map[string]tw{
			"broken.test.js": brok("Cannot find module './does-not-exist.js'"),
			"other.test.js":  pass, // "✓ other.test.js (1 test)": the file ran, its tests unnamed
		}),
	},
	{
		file: "vitest_verbose.txt", parse: observedBy(parseJest), framework: FrameworkVitest,
		passed: 3, failed: 3, skipped: 2, infra: InfraCollection,
		tests: merge(vitestFailures("sum.test.js"), jestPasses("sum.test.js", "other.test.js"), map[string]tw{
			"broken.test.js": brok("Cannot find module './does-not-exist.js'"),
		}),
	},
	{
		file: "vitest.json", parse: observedBy(parseJest), framework: FrameworkVitest,
		passed: 3, failed: 3, skipped: 2, infra: InfraCollection,
		tests: merge(jsonMessages(vitestFailures("js/vitestproj/sum.test.js")), jestPasses("js/vitestproj/sum.test.js", "js/vitestproj/other.test.js"), map[string]tw{
			"js/vitestproj/broken.test.js": brok("Cannot find module './does-not-exist.js'"),
		}),
	},
	{
		file: "cargo.txt", parse: observedBy(parseCargo), framework: FrameworkCargo,
		passed: 5, failed: 3, skipped: 1,
		tests: merge(cargoLib, map[string]tw{
			"api_add":                   pass,
			"api_sub":                   fail("panicked at tests/api.rs:8:5:\nexpected zero"),
			"src/lib.rs - add (line 3)": pass,
		}),
	},
	{
		file: "cargo_quiet.txt", parse: observedBy(parseCargo), framework: FrameworkCargo,
		passed: 5, failed: 3, skipped: 1,
		tests: map[string]tw{
			"parser::tests::rejects_word": cargoLib["parser::tests::rejects_word"],
			"tests::subtracts":            cargoLib["tests::subtracts"],
			"api_sub":                     fail("expected zero"),
		},
	},
	{
		file: "cargo_backtrace.txt", parse: observedBy(parseCargo), framework: FrameworkCargo,
		passed: 3, failed: 2, skipped: 1,
		tests: merge(cargoLib, map[string]tw{
			"tests::subtracts": fail("assertion `left == right` failed: sub(5, 3) should be 2", "stack backtrace:"),
		}),
	},
	{
		file: "cargo_color.txt", parse: observedBy(parseCargo), framework: FrameworkCargo,
		passed: 3, failed: 2, skipped: 1, tests: cargoLib,
	},
	{
		file: "cargo_compile_error.txt", parse: observedBy(parseCargo), framework: FrameworkCargo,
		infra: InfraBuild, infraMsg: "error[E0308]: mismatched types",
		tests: map[string]tw{"broken (lib test)": brok("error[E0308]: mismatched types", "--> src/lib.rs:11:25", "could not compile `broken`")},
	},
	{
		file: "junit_surefire.xml", parse: observedBy(parseJUnitXML), framework: FrameworkJUnit,
		passed: 3, failed: 3, skipped: 1,
		tests: map[string]tw{
			"com.example.calc.CalculatorTest.addsTwoNumbers":               pass,
			"com.example.calc.CalculatorTest.subtractsTwoNumbers":          {msg: []string{"expected: <2> but was: <8>", "CalculatorTest.java:21"}, notMsg: []string{"computing 5 - 3"}},
			"com.example.calc.CalculatorTest.dividesByZero":                fail("java.lang.ArithmeticException: / by zero"),
			"com.example.calc.CalculatorTest.multiplies(int, int, int)[1]": pass,
			"com.example.calc.CalculatorTest.multiplies(int, int, int)[2]": fail("2 * 3 ==> expected: <6> but was: <5>"),
			"com.example.calc.CalculatorTest.flakyNetworkCall":             pass,
		},
	},
	{
		file: "junit_gradle_concat.xml", parse: observedBy(parseJUnitXML), framework: FrameworkJUnit,
		passed: 2, failed: 1,
		tests: map[string]tw{
			"com.example.app.GreeterTest.greetsByName()":    fail("expected: <Hello, Ada> but was: <Hello, null>"),
			"com.example.app.GreeterTest.greetsWorld()":     pass,
			"com.example.app.ParserTest.parsesEmptyInput()": pass,
		},
	},
	{
		file: "shell_not_found_sh.txt", framework: FrameworkJest,
		infra: InfraCommandNotFound, infraMsg: "sh: 1: jest: not found", tests: map[string]tw{},
	},
	{
		file: "shell_not_found_bash.txt", framework: "",
		infra: InfraCommandNotFound, infraMsg: "npx-missing-runner: command not found", tests: map[string]tw{},
	},
}

var pytestFailures = map[string]tw{
	"tests/test_calc.py::test_sub":                    fail("E       assert 8 == 2", "where 8 = sub(5, 3)"),
	"tests/test_calc.py::TestCalc::test_sub_negative": fail("E       AssertionError: sub(-1, -1) should be 0"),
	"tests/test_calc.py::test_param[2-2-5]":           fail("E       assert 4 == 5"),
	"tests/test_calc.py::test_ids[a/b::c]":            fail("AssertionError: assert '/' not in 'a/b::c'"),
	"tests/test_calc.py::test_raises":                 fail("E       ValueError: bad value: 42"),
	"tests/test_fixture.py::test_uses_db":             fail("RuntimeError: db down"),
}

var pytestPasses = map[string]tw{
	"tests/test_calc.py::test_add":                    pass,
	"tests/test_calc.py::TestCalc::test_add_negative": pass,
	"tests/test_calc.py::test_param[1-2-3]":           pass,
	"tests/test_calc.py::test_param[0-0-0]":           pass,
	"tests/test_calc.py::test_ids[plain]":             pass,
	"tests/test_calc.py::test_ids[with space]":        pass,
	"tests/test_fixture.py::test_ok":                  pass,
}

func jestFailures(file string) map[string]tw {
	return map[string]tw{
		file + " › math › subtracts":                      fail("expect(received).toBe(expected)", "Expected: 2", "Received: 8"),
		file + " › math › nested group › throws an error": fail("boom: something broke"),
		file + " › top level test":                        fail("expect(received).toEqual(expected) // deep equality"),
	}
}

func vitestFailures(file string) map[string]tw {
	return map[string]tw{
		file + " › math › subtracts":                      fail("AssertionError: expected 8 to be 2 // Object.is equality", "- 2\n+ 8"),
		file + " › math › nested group › throws an error": fail("Error: boom: something broke"),
		file + " › top level test":                        fail("AssertionError: expected { a: 1, b: [ 1, 2 ] } to deeply equal { a: 1, b: [ 1, 3 ] }"),
	}
}

// jsonMessages keeps the first line of each expected message: the JSON
// reporters give the error and its stack, not the diff.
func jsonMessages(m map[string]tw) map[string]tw {
	out := map[string]tw{}
	for k, v := range m {
		v.msg = []string{strings.SplitN(v.msg[0], "\n", 2)[0]}
		out[k] = v
	}
	return out
}

func jestPasses(file, other string) map[string]tw {
	return map[string]tw{
		file + " › math › adds 1 + 2":                       pass,
		file + " › math › nested group › handles negatives": pass,
		other + " › always passes":                          pass,
	}
}

var cargoLib = map[string]tw{
	"parser::tests::parses_number": pass,
	"parser::tests::rejects_word":  fail("panicked at src/lib.rs:31:32", "invalid digit found in string"),
	"tests::adds":                  pass,
	"tests::panics_as_expected":    pass,
	"tests::subtracts":             {msg: []string{"about to subtract", "assertion `left == right` failed: sub(5, 3) should be 2", "left: 8", "right: 2"}, notMsg: []string{"rejects_word"}},
}

func merge(ms ...map[string]tw) map[string]tw {
	out := map[string]tw{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

func without(m map[string]tw, names ...string) map[string]tw {
	out := merge(m)
	for _, n := range names {
		delete(out, n)
	}
	return out
}

// tmpPrefix is the temporary directory the JSON reporters print in full.
var tmpPrefix = regexp.MustCompile(`^/\S*?/(js/(?:jest|vitest)proj/)`)

func readFixtureBytes(name string) ([]byte, error) {
	return os.ReadFile(filepath.Join("testdata", name))
}

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	data, err := readFixtureBytes(name)
	if err != nil {
		t.Fatalf("read fixture: %v", err)
	}
	return data
}

func TestFixtures(t *testing.T) {
	for _, f := range fixtures {
		t.Run(f.file, func(t *testing.T) {
			data := readFixture(t, f.file)
			r, ok := Parse(data)
			if !ok {
				t.Fatalf("Parse did not recognise %s", f.file)
			}
			checkResult(t, f, r)
			if f.parse != nil {
				direct, ok := f.parse(data)
				if !ok {
					t.Fatalf("the format's own parser did not recognise %s", f.file)
				}
				if !reflect.DeepEqual(direct, r) {
					t.Errorf("Parse and the format's parser disagree:\nParse:  %+v\ndirect: %+v", r, direct)
				}
			}
		})
	}
}

// Windows line endings must not change anything.
func TestFixturesCRLF(t *testing.T) {
	for _, f := range fixtures {
		t.Run(f.file, func(t *testing.T) {
			data := readFixture(t, f.file)
			want, _ := Parse(data)
			got, ok := Parse(bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n")))
			if !ok {
				t.Fatal("not recognised with CRLF line endings")
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("CRLF result differs:\n got: %+v\nwant: %+v", got, want)
			}
		})
	}
}

func checkResult(t *testing.T, f fixture, r Result) {
	t.Helper()
	if r.Framework != f.framework {
		t.Errorf("Framework = %q, want %q", r.Framework, f.framework)
	}
	if r.Passed != f.passed || r.Failed != f.failed || r.Skipped != f.skipped {
		t.Errorf("Passed/Failed/Skipped = %d/%d/%d, want %d/%d/%d", r.Passed, r.Failed, r.Skipped, f.passed, f.failed, f.skipped)
	}
	switch {
	case f.infra == "" && r.Infra != nil:
		t.Errorf("unexpected Infra %+v", *r.Infra)
	case f.infra != "" && r.Infra == nil:
		t.Errorf("Infra = nil, want kind %q", f.infra)
	case f.infra != "":
		if r.Infra.Kind != f.infra {
			t.Errorf("Infra.Kind = %q, want %q", r.Infra.Kind, f.infra)
		}
		if !strings.Contains(r.Infra.Message, f.infraMsg) {
			t.Errorf("Infra.Message = %q, want it to contain %q", r.Infra.Message, f.infraMsg)
		}
	}
	got := map[string]bool{}
	for _, tr := range r.Tests {
		name := tmpPrefix.ReplaceAllString(tr.Name, "$1")
		if got[name] {
			t.Errorf("test %q reported twice", name)
		}
		got[name] = true
		want, ok := f.tests[name]
		if !ok {
			t.Errorf("unexpected test %q (passed=%v infra=%v)", name, tr.Passed, tr.Infra)
			continue
		}
		if tr.Passed != want.passed || tr.Infra != want.infra {
			t.Errorf("%s: passed=%v infra=%v, want passed=%v infra=%v", name, tr.Passed, tr.Infra, want.passed, want.infra)
		}
		if tr.Passed && tr.Message != "" {
			t.Errorf("%s passed but has message %q", name, tr.Message)
		}
		for _, m := range want.msg {
			if !strings.Contains(tr.Message, m) {
				t.Errorf("%s: message %q\ndoes not contain %q", name, tr.Message, m)
			}
		}
		for _, m := range want.notMsg {
			if strings.Contains(tr.Message, m) {
				t.Errorf("%s: message %q\nshould not contain %q", name, tr.Message, m)
			}
		}
		if len(tr.Message) > MaxMessage+64 {
			t.Errorf("%s: message of %d bytes exceeds the cap", name, len(tr.Message))
		}
	}
	var missing []string
	for name := range f.tests {
		if !got[name] {
			missing = append(missing, name)
		}
	}
	slices.Sort(missing)
	for _, name := range missing {
		t.Errorf("missing test %q", name)
	}
}

// observedBy is parse with its results marked as Parse marks them.
func observedBy(parse func([]byte) (Result, bool)) func([]byte) (Result, bool) {
	return func(output []byte) (Result, bool) { return observed(parse(output)) }
}
