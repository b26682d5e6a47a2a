package testparse

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker"
)

func byName(ts []loopbreaker.TestResult) []loopbreaker.TestResult {
	out := slices.Clone(ts)
	slices.SortFunc(out, func(a, b loopbreaker.TestResult) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func find(t *testing.T, r Result, name string) loopbreaker.TestResult {
	t.Helper()
	for _, tr := range r.Tests {
		if tr.Name == name {
			return tr
		}
	}
	t.Fatalf("no test %q in %+v", name, r.Tests)
	return loopbreaker.TestResult{}
}

// go test -json of several packages may interleave their events in any
// order; each event must still land on its own package and test.
func TestGoJSONInterleavedPackages(t *testing.T) {
	data := readFixture(t, "go.json")
	var order []string
	perPkg := map[string][][]byte{}
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		key := "?"
		if i := bytes.Index(line, []byte(`"Package":"`)); i >= 0 {
			rest := line[i+len(`"Package":"`):]
			key = string(rest[:bytes.IndexByte(rest, '"')])
		}
		if _, ok := perPkg[key]; !ok {
			order = append(order, key)
		}
		perPkg[key] = append(perPkg[key], line)
	}
	if len(order) < 4 {
		t.Fatalf("fixture has %d packages, want several to interleave", len(order))
	}
	var mixed []byte
	for round := 0; ; round++ {
		added := false
		for _, k := range order {
			if round < len(perPkg[k]) {
				mixed = append(mixed, perPkg[k][round]...)
				added = true
			}
		}
		if !added {
			break
		}
	}
	want, _ := Parse(data)
	got, ok := Parse(mixed)
	if !ok {
		t.Fatal("interleaved output not recognised")
	}
	if !reflect.DeepEqual(byName(got.Tests), byName(want.Tests)) {
		t.Errorf("interleaving changed the results:\n got: %+v\nwant: %+v", byName(got.Tests), byName(want.Tests))
	}
	if got.Passed != want.Passed || got.Failed != want.Failed || got.Skipped != want.Skipped {
		t.Errorf("counts %d/%d/%d, want %d/%d/%d", got.Passed, got.Failed, got.Skipped, want.Passed, want.Failed, want.Skipped)
	}
}

// A Makefile that runs go test and then jest prints both: both count.
func TestParseMergesRunnersInOneOutput(t *testing.T) {
	goOut, jestOut := readFixture(t, "go_verbose.txt"), readFixture(t, "jest_default.txt")
	r, ok := Parse(append(append(slices.Clone(goOut), "make: go test done\n"...), jestOut...))
	if !ok {
		t.Fatal("not recognised")
	}
	g, _ := observed(parseGo(goOut))
	j, _ := observed(parseJest(jestOut))
	if r.Framework != FrameworkGo {
		t.Errorf("Framework = %q, want the first runner, go", r.Framework)
	}
	if want := len(g.Tests) + len(j.Tests); len(r.Tests) != want {
		t.Errorf("%d tests, want %d (go %d + jest %d)", len(r.Tests), want, len(g.Tests), len(j.Tests))
	}
	if r.Failed != g.Failed+j.Failed || r.Passed != g.Passed+j.Passed {
		t.Errorf("counts %d passed %d failed, want %d and %d", r.Passed, r.Failed, g.Passed+j.Passed, g.Failed+j.Failed)
	}
	if r.Infra == nil || r.Infra.Kind != InfraCollection {
		t.Errorf("Infra = %+v, want jest's collection failure", r.Infra)
	}
	find(t, r, "example.com/demo/calc.TestSub")
	find(t, r, "sum.test.js › math › subtracts")
}

func TestGoEdgeCases(t *testing.T) {
	tests := []struct {
		name   string
		output string
		want   []loopbreaker.TestResult
		infra  string
	}{
		{
			name: "crash without --- FAIL, no -v: the package fails",
			output: "panic: boom in a goroutine\n\ngoroutine 7 [running]:\nexample.com/x.worker()\n\t/src/x.go:9 +0x1d\n" +
				"FAIL\texample.com/x\t0.012s\nFAIL\n",
			want: []loopbreaker.TestResult{{Name: "example.com/x", Message: "panic: boom in a goroutine\n\ngoroutine 7 [running]:\nexample.com/x.worker()\n\t/src/x.go:9 +0x1d"}},
		},
		{
			name: "crash without --- FAIL, -v: the running test fails",
			output: "=== RUN   TestA\n--- PASS: TestA (0.00s)\n=== RUN   TestB\npanic: boom\n\ngoroutine 7 [running]:\n" +
				"FAIL\texample.com/x\t0.012s\n",
			want: []loopbreaker.TestResult{
				{Name: "example.com/x.TestA", Passed: true},
				{Name: "example.com/x.TestB", Message: "panic: boom\n\ngoroutine 7 [running]:"},
			},
		},
		{
			name:   "output cut before the package line: names stay unqualified",
			output: "--- FAIL: TestCut (0.00s)\n    cut_test.go:3: boom\n",
			want:   []loopbreaker.TestResult{{Name: "TestCut", Message: "cut_test.go:3: boom"}},
		},
		{
			name:   "a test printing shell errors is a failure, not a missing runner",
			output: "--- FAIL: TestShell (0.00s)\n    shell_test.go:9: sh: 1: frobnicate: not found\nFAIL\nFAIL\texample.com/x\t0.01s\n",
			want:   []loopbreaker.TestResult{{Name: "example.com/x.TestShell", Message: "shell_test.go:9: sh: 1: frobnicate: not found"}},
		},
		{
			name:   "a parent failing on its own, with passing subtests, is kept",
			output: "--- FAIL: TestParent (0.00s)\n    p_test.go:5: parent broke\n    --- PASS: TestParent/child (0.00s)\nFAIL\nFAIL\tx\t0.01s\n",
			want: []loopbreaker.TestResult{
				{Name: "x.TestParent", Message: "p_test.go:5: parent broke"},
				{Name: "x.TestParent/child", Passed: true},
			},
		},
		{
			name:   "no tests to run is not a pass",
			output: "ok  \texample.com/x\t0.002s [no tests to run]\n",
			want:   nil,
		},
		{
			name:   "go command error without a module",
			output: "go: go.mod file not found in current directory or any parent directory; see 'go help modules'\n",
			want:   nil,
			infra:  InfraSetup,
		},
		{
			name:   "a package directory without Go files",
			output: "# ./sub\nno Go files in /src/app/sub\nFAIL\t./sub [setup failed]\nFAIL\n",
			want:   []loopbreaker.TestResult{{Name: "./sub", Infra: true, Message: "no Go files in /src/app/sub"}},
			infra:  InfraSetup,
		},
		{
			name:   "GOPATH mode: cannot find package",
			output: "can't load package: package example.com/gone: cannot find package \"example.com/gone\" in any of:\n\t/usr/local/go/src/example.com/gone (from $GOROOT)\n",
			want:   nil,
			infra:  InfraBuild,
		},
		{
			name:   "go build output alone",
			output: "# example.com/x\n./x.go:3:2: undefined: y\n",
			want:   []loopbreaker.TestResult{{Name: "example.com/x", Infra: true, Message: "./x.go:3:2: undefined: y"}},
			infra:  InfraBuild,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, ok := observed(parseGo([]byte(tt.output)))
			if !ok {
				t.Fatal("not recognised")
			}
			if !reflect.DeepEqual(sansUnits(r.Tests), observedAll(tt.want)) {
				t.Errorf("Tests:\n got %#v\nwant %#v", r.Tests, tt.want)
			}
			switch {
			case tt.infra == "" && r.Infra != nil:
				t.Errorf("unexpected Infra %+v", *r.Infra)
			case tt.infra != "" && (r.Infra == nil || r.Infra.Kind != tt.infra):
				t.Errorf("Infra = %+v, want kind %s", r.Infra, tt.infra)
			}
			if auto, ok := Parse([]byte(tt.output)); !ok || !reflect.DeepEqual(auto, r) {
				t.Errorf("Parse gives ok=%v %+v, observedBy(parseGo) %+v", ok, auto, r)
			}
		})
	}
}

// pytest-xdist prints results as "[gw0] [ 50%] PASSED id"; a test that
// passes and then errors in teardown is one failed test. (Hand-written in
// the formats pytest 7 and pytest-xdist 3 print; xdist is not installed here.)
func TestPytestXdistAndTeardown(t *testing.T) {
	out := "============================= test session starts ==============================\n" +
		"created: 2/2 workers\n2 workers [3 items]\n\n" +
		"[gw0] [ 33%] PASSED tests/test_a.py::test_one \n" +
		"[gw1] [ 66%] FAILED tests/test_a.py::test_two \n" +
		"[gw0] [100%] PASSED tests/test_b.py::test_three \n" +
		"[gw0] [100%] ERROR tests/test_b.py::test_three \n\n" +
		"==================================== ERRORS ====================================\n" +
		"______________________ ERROR at teardown of test_three _______________________\n" +
		"    def cleanup():\n>       raise OSError(\"disk gone\")\nE       OSError: disk gone\n\ntests/conftest.py:8: OSError\n" +
		"=================================== FAILURES ===================================\n" +
		"___________________________________ test_two ___________________________________\n" +
		"[gw1] linux -- Python 3.11.2 /usr/bin/python3\n" +
		"    def test_two():\n>       assert 1 == 2\nE       assert 1 == 2\n\ntests/test_a.py:5: AssertionError\n" +
		"=========================== short test summary info ============================\n" +
		"FAILED tests/test_a.py::test_two - assert 1 == 2\n" +
		"ERROR tests/test_b.py::test_three - OSError: disk gone\n" +
		"================= 1 failed, 2 passed, 1 error in 0.52s =================\n"
	r, ok := Parse([]byte(out))
	if !ok || r.Framework != FrameworkPytest {
		t.Fatalf("not recognised as pytest: %+v", r)
	}
	want := []loopbreaker.TestResult{
		{Name: "tests/test_a.py::test_one", Passed: true},
		{Name: "tests/test_a.py::test_two", Message: "E       assert 1 == 2"},
		{Name: "tests/test_b.py::test_three", Message: "E       OSError: disk gone"},
	}
	if !reflect.DeepEqual(sansUnits(r.Tests), observedAll(want)) {
		t.Errorf("Tests:\n got %#v\nwant %#v", r.Tests, want)
	}
	if r.Passed != 2 || r.Failed != 2 || r.Infra != nil {
		t.Errorf("Passed=%d Failed=%d Infra=%v, want 2, 2 (a failure and an error), nil", r.Passed, r.Failed, r.Infra)
	}
}

func TestPytestConftestImportError(t *testing.T) {
	// pytest 7 prints this on stderr and exits with 4 when a conftest
	// cannot be imported (hand-written in that format).
	out := "ImportError while loading conftest '/app/tests/conftest.py'.\n" +
		"tests/conftest.py:1: in <module>\n    import missing_dep\n" +
		"E   ModuleNotFoundError: No module named 'missing_dep'\n"
	r, ok := Parse([]byte(out))
	if !ok || r.Framework != FrameworkPytest || r.Infra == nil || r.Infra.Kind != InfraCollection {
		t.Fatalf("got ok=%v %+v, want a pytest collection failure", ok, r)
	}
	if !strings.Contains(r.Infra.Message, "No module named 'missing_dep'") {
		t.Errorf("Infra.Message = %q", r.Infra.Message)
	}
}

// jest repeats every failure under "Summary of all failing tests".
func TestJestSummaryRepeatsFailuresOnce(t *testing.T) {
	out := readFixture(t, "jest_default.txt")
	blockStart := bytes.Index(out, []byte("FAIL ./sum.test.js"))
	blockEnd := bytes.Index(out, []byte("FAIL ./broken.test.js"))
	repeated := append(slices.Clone(out), "\nSummary of all failing tests\n"...)
	repeated = append(repeated, out[blockStart:blockEnd]...)
	want, _ := observed(parseJest(out))
	got, ok := observed(parseJest(repeated))
	if !ok || !reflect.DeepEqual(got, want) {
		t.Errorf("the repeated summary changed the result:\n got %+v\nwant %+v", got, want)
	}
}

func TestShellErrors(t *testing.T) {
	tests := []struct {
		line      string
		kind      string
		framework string
	}{
		{"sh: 1: pytest: not found", InfraCommandNotFound, FrameworkPytest},
		{"/bin/sh: 1: go: not found", InfraCommandNotFound, FrameworkGo},
		{"bash: cargo: command not found", InfraCommandNotFound, FrameworkCargo},
		{"bash: line 1: vitest: command not found", InfraCommandNotFound, FrameworkVitest},
		{"zsh: command not found: jest", InfraCommandNotFound, FrameworkJest},
		{"bash: ./node_modules/.bin/jest: No such file or directory", InfraCommandNotFound, FrameworkJest},
		{"env: 'pytest': No such file or directory", InfraCommandNotFound, FrameworkPytest},
		{`exec: "gotestsum": executable file not found in $PATH`, InfraCommandNotFound, FrameworkGo},
		{"/usr/bin/python3: No module named pytest", InfraCommandNotFound, FrameworkPytest},
		{"'pytest' is not recognized as an internal or external command,", InfraCommandNotFound, FrameworkPytest},
		{`npm error Missing script: "test"`, InfraCommandNotFound, ""},
		{"error: no such command: `nextest`", InfraCommandNotFound, FrameworkCargo},
		{"Error: Cannot find module '/app/node_modules/jest/bin/jest.js'", InfraSetup, FrameworkJest},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			out := "$ run tests\n" + tt.line + "\n"
			r, ok := Parse([]byte(out))
			if !ok {
				t.Fatal("not recognised")
			}
			if r.Infra == nil || r.Infra.Kind != tt.kind || r.Infra.Message != tt.line {
				t.Errorf("Infra = %+v, want kind %s and the line", r.Infra, tt.kind)
			}
			if r.Framework != tt.framework {
				t.Errorf("Framework = %q, want %q", r.Framework, tt.framework)
			}
			if len(r.Tests) != 0 {
				t.Errorf("Tests = %+v, want none", r.Tests)
			}
		})
	}
	// Words alone do not make a missing runner.
	for _, s := range []string{
		"    sh: 1: pytest: not found", // indented: printed by something else
		"ModuleNotFoundError: No module named 'requests'",
		"open config.yaml: No such file or directory",
		"hello world",
	} {
		if r, ok := Parse([]byte(s + "\n")); ok {
			t.Errorf("%q recognised as %+v", s, r)
		}
	}
}

func TestGarbageIsNotRecognised(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	garbage := make([]byte, 1<<20)
	for i := range garbage {
		garbage[i] = byte(rng.UintN(256))
	}
	parsers := map[string]func([]byte) (Result, bool){
		"Parse": Parse, "observedBy(parseGo)": observedBy(parseGo), "observedBy(parseGoJSON)": observedBy(parseGoJSON), "observedBy(parsePytest)": observedBy(parsePytest),
		"observedBy(parseJest)": observedBy(parseJest), "observedBy(parseCargo)": observedBy(parseCargo), "observedBy(parseJUnitXML)": observedBy(parseJUnitXML),
	}
	for name, parse := range parsers {
		for _, in := range [][]byte{garbage, nil, {}, []byte("\x00\x1b[\x1b]\x1b"), []byte("{\"Action\":"), []byte("<testsuite><testcase")} {
			if r, ok := parse(in); ok {
				t.Errorf("%s recognised %d bytes of garbage as %+v", name, len(in), r)
			}
		}
	}
}

// An unterminated JUnit report still yields the cases that were complete.
func TestJUnitCutShort(t *testing.T) {
	data := readFixture(t, "junit_surefire.xml")
	cut := data[:bytes.Index(data, []byte(`<testcase name="dividesByZero"`))+10]
	r, ok := observed(parseJUnitXML(cut))
	if !ok {
		t.Fatal("not recognised")
	}
	if len(r.Tests) != 2 || r.Tests[1].Name != "com.example.calc.CalculatorTest.subtractsTwoNumbers" || r.Tests[1].Passed {
		t.Errorf("Tests = %+v, want addsTwoNumbers passed and subtractsTwoNumbers failed", r.Tests)
	}
}

func TestMessagesAreCapped(t *testing.T) {
	var b strings.Builder
	b.WriteString("=== RUN   TestNoisy\n    noisy_test.go:1: first line of the failure\n")
	for i := 0; i < 50000; i++ {
		fmt.Fprintf(&b, "    noisy_test.go:2: log line %d with some padding to make it longer\n", i)
	}
	b.WriteString("    noisy_test.go:3: the assertion that failed at the end\n--- FAIL: TestNoisy (1.00s)\nFAIL\nFAIL\tx\t1.0s\n")
	r, ok := observedBy(parseGo)([]byte(b.String()))
	if !ok || len(r.Tests) != 1 {
		t.Fatalf("got %+v", r)
	}
	msg := r.Tests[0].Message
	if len(msg) > MaxMessage+64 {
		t.Errorf("message is %d bytes, want at most about %d", len(msg), MaxMessage)
	}
	for _, want := range []string{"first line of the failure", "bytes omitted", "the assertion that failed at the end"} {
		if !strings.Contains(msg, want) {
			t.Errorf("capped message lacks %q", want)
		}
	}
}

func TestStripANSI(t *testing.T) {
	in := "\x1b[1m\x1b[31mFAIL\x1b[0m \x1b]8;;http://x\x07link\x1b]8;;\x07 \x1b(Bok\x1b[m\x1b"
	if got := string(stripANSI(nil, []byte(in))); got != "FAIL link ok" {
		t.Errorf("stripANSI = %q", got)
	}
	s := newLineScanner([]byte("progress 10%\rprogress 100%\r\nnext\n"))
	first, _ := s.next()
	if string(first) != "progress 100%" {
		t.Errorf("carriage-return overwrite: got %q", first)
	}
}

// synthGoVerbose builds go test -v output of about size bytes: packages of
// passing tests with logs, and a failing test in every tenth package.
func synthGoVerbose(size int) ([]byte, int, int) {
	var b bytes.Buffer
	passed, failed := 0, 0
	for pkg := 0; b.Len() < size; pkg++ {
		status := "ok  "
		for i := 0; i < 20; i++ {
			fmt.Fprintf(&b, "=== RUN   TestCase%d\n    case_test.go:%d: checking input %d of package %d\n", i, i, i, pkg)
			if pkg%10 == 0 && i == 7 {
				fmt.Fprintf(&b, "    case_test.go:99: got %d, want %d\n--- FAIL: TestCase%d (0.00s)\n", pkg, pkg+1, i)
				status = "FAIL"
				failed++
				continue
			}
			fmt.Fprintf(&b, "--- PASS: TestCase%d (0.00s)\n", i)
			passed++
		}
		if status == "FAIL" {
			b.WriteString("FAIL\n")
		}
		fmt.Fprintf(&b, "%s\texample.com/big/pkg%d\t0.01s\n", status, pkg)
	}
	return b.Bytes(), passed, failed
}

// allocatedBy reports the bytes fn allocates.
func allocatedBy(fn func()) uint64 {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// 50 MB of output parses completely in one pass. Memory follows the number
// of tests, not the size of the output: 50 MB of logs from two tests cost
// next to nothing, half a million tests cost a few hundred bytes each.
func TestHugeOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 16 MB of output")
	}
	t.Run("few tests, huge logs", func(t *testing.T) {
		var b bytes.Buffer
		line := "    noisy_test.go:12: " + strings.Repeat("log output ", 8) + "\n"
		for i, name := range []string{"TestLoud", "TestLouder"} {
			b.WriteString("=== RUN   " + name + "\n")
			for b.Len() < (i+1)*4<<20 {
				b.WriteString(line)
			}
			b.WriteString("    noisy_test.go:99: the real failure of " + name + "\n--- FAIL: " + name + " (9.00s)\n")
		}
		b.WriteString("FAIL\nFAIL\texample.com/noisy\t18.0s\n")
		var r Result
		var ok bool
		allocated := allocatedBy(func() { r, ok = Parse(b.Bytes()) })
		if !ok || r.Failed != 2 || !strings.Contains(r.Tests[1].Message, "the real failure of TestLouder") {
			t.Fatalf("got ok=%v %d failed, tests %+v", ok, r.Failed, r.Tests)
		}
		t.Logf("%d MB of output: %d KB allocated", b.Len()>>20, allocated>>10)
		if allocated > 1<<20 {
			t.Errorf("allocated %d KB for two tests: memory grows with the output", allocated>>10)
		}
	})
	t.Run("half a million tests", func(t *testing.T) {
		data, passed, failed := synthGoVerbose(8 << 20)
		var r Result
		var ok bool
		allocated := allocatedBy(func() { r, ok = Parse(data) })
		if !ok {
			t.Fatal("not recognised")
		}
		if r.Passed != passed || r.Failed != failed || len(r.Tests) != passed+failed {
			t.Errorf("Passed=%d Failed=%d tests=%d, want %d, %d, %d", r.Passed, r.Failed, len(r.Tests), passed, failed, passed+failed)
		}
		perTest := allocated / uint64(len(r.Tests))
		t.Logf("%d MB of output, %d tests: %d MB allocated, %d bytes per test", len(data)>>20, len(r.Tests), allocated>>20, perTest)
		if perTest > 1024 {
			t.Errorf("%d bytes allocated per test: more than a result and its name need", perTest)
		}
	})
}

func BenchmarkParseGo1MB(b *testing.B) {
	data, _, _ := synthGoVerbose(1 << 20)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := Parse(data); !ok {
			b.Fatal("not recognised")
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, fx := range fixtures {
		data, err := readFixtureBytes(fx.file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data[:min(len(data), 4096)])
	}
	f.Add([]byte("=== RUN   A\n--- FAIL: A/b/c (0.00s)\n    --- FAIL: A (0.00s)\nFAIL\tx\t0s\n"))
	f.Add([]byte("{\"Action\":\"fail\",\"Package\":\"p\",\"Test\":\"T/x\"}\n{\"Action\":\"fail\",\"Package\":\"p\"}\n"))
	f.Add([]byte("<testsuite><testcase name=\"a\"><failure message=\"m\">x</failure></testcase></testsuite>"))
	parsers := []func([]byte) (Result, bool){observedBy(parseGo), observedBy(parseGoJSON), observedBy(parsePytest), observedBy(parseJest), observedBy(parseCargo), observedBy(parseJUnitXML)}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, ok := Parse(data)
		if !ok && (len(r.Tests) > 0 || r.Infra != nil) {
			t.Errorf("not recognised but returned %+v", r)
		}
		for _, parse := range append(parsers, Parse) {
			r, _ := parse(data)
			for _, tr := range r.Tests {
				if len(tr.Message) > MaxMessage+64 {
					t.Errorf("message of %d bytes", len(tr.Message))
				}
			}
			if r.Passed < 0 || r.Failed < 0 || r.Skipped < 0 {
				t.Errorf("negative counts %+v", r)
			}
		}
	})
}

// sansUnits drops the units, which TestUnits checks.
func sansUnits(ts []loopbreaker.TestResult) []loopbreaker.TestResult {
	out := slices.Clone(ts)
	for i := range out {
		out[i].Unit = ""
	}
	return out
}

// observedAll marks expected results as parsers return them: observed.
func observedAll(ts []loopbreaker.TestResult) []loopbreaker.TestResult {
	out := slices.Clone(ts)
	for i := range out {
		out[i].Observed = true
	}
	return out
}

func TestEveryParsedResultIsObserved(t *testing.T) {
	r, ok := Parse(readFixture(t, "jest_default.txt"))
	if !ok || len(r.Tests) == 0 {
		t.Fatal("fixture not parsed")
	}
	for _, tr := range r.Tests {
		if !tr.Observed {
			t.Fatalf("%s not marked observed", tr.Name)
		}
	}
}
