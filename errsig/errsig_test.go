package errsig

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestNormalize(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		// escape codes and whitespace
		{"ansi colours", "\x1b[1;31mFAIL\x1b[0m: TestFoo", "FAIL: TestFoo"},
		{"osc title and hyperlink", "\x1b]0;title\x07see \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "see link"},
		{"charset escape", "\x1b(Bok", "ok"},
		{"whitespace", "  a \t b  \r\n\n\n   c  \n \u00a0 \n", "a b\nc"},
		{"carriage return progress", "10%\r50%\r100%", "10%\n50%\n100%"},
		{"control bytes", "a\x00b\x07c", "a b c"},
		{"invalid utf-8", "a\xff\xfeb\xc3", "a?b?"},
		{"unicode kept", "erwartet «größer» — got ✗", "erwartet «größer» — got ✗"},

		// timestamps
		{"rfc3339", "2026-11-21T17:21:49.123Z boom", "<time> boom"},
		{"rfc3339 offset", "at 2026-11-21T17:21:49+02:00.", "at <time>."},
		{"go log", "2026/11/21 17:21:49 boom", "<time> boom"},
		{"python logging", "2026-11-21 17:21:49,123 ERROR boom", "<time> ERROR boom"},
		{"go time string", "2009-11-10 23:00:00 +0000 UTC m=+0.000000001 boom", "<time> boom"},
		{"clock", "at 17:21:49.123 boom", "at <time> boom"},
		{"syslog", "Nov 21 17:21:49 host sshd[1234]: boom", "<time> host sshd[N]: boom"},
		{"syslog in brackets", "[Nov 21 17:21:49] boom", "[<time>] boom"},
		{"rfc1123", "Date: Mon, 21 Nov 2026 17:21:49 GMT", "Date: <time>"},
		{"date(1)", "Mon Jan 2 15:04:05 MST 2006 boom", "<time> boom"},
		{"month day, year", "Nov 21, 2026 17:21:49 boom", "<time> boom"},
		{"access log", `127.0.0.1 - - [21/Nov/2026:17:21:49 +0000] "GET /" 500`, `127.0.0.1 - - [<time>] "GET /" 500`},
		{"date alone", "expires 2026-11-21", "expires <date>"},
		{"not a month", "Foo 21 17:21:49", "Foo 21 <time>"},

		// durations
		{"go test", "--- FAIL: TestFoo (0.01s)", "--- FAIL: TestFoo (Ns)"},
		{"units", "1.234s 150ms 2m3s 1h0m0.5s 5µs 3ns 10s", "Ns Ns Ns Ns Ns Ns Ns"},
		{"spelled out", "in 3.2 seconds, 5 min, 2 hours", "in Ns, Ns, Ns"},
		{"spaced short", "Time: 1.234 s, took 150 ms", "Time: Ns, took Ns"},
		{"not durations", "v1.5s 1.2.3 3 apples 5 m", "v1.5s 1.2.3 3 apples 5 m"},

		// hex
		{"address", "obj at 0xc000123abc, pc=0x48f5a2", "obj at <addr>, pc=<addr>"},
		{"pc offset", "\t/x/main.go:12 +0x1d", "/x/main.go:N +0xN"},
		{"small hex kept", "code=0x1 flags 0x1f", "code=0x1 flags 0x1f"},
		{"uuid", "request 550E8400-e29b-41d4-a716-446655440000 failed", "request <uuid> failed"},
		{"git sha", "HEAD is now at 1a2b3c4 fix; commit 9fceb02d0ae598e95dc970b74767f19372d61af8", "HEAD is now at <hex> fix; commit <hex>"},
		{"hex needs digit and letter", "deadbeef defaced 12345678 abc123", "deadbeef defaced 12345678 abc123"},

		// temp paths
		{"tmp file", "open /tmp/TestFoo1234567/001/config.yaml: denied", "open <tmp>/config.yaml: denied"},
		{"go test dir", "dir /tmp/TestFoo1234567/001", "dir <tmp>"},
		{"tmp dir alone", "cd /tmp/tmpa1b2c3d4 &&", "cd <tmp> &&"},
		{"macos", "/var/folders/x1/ab12cd/T/TestFoo99/001/go.mod:3:1: bad", "<tmp>/go.mod:N:N: bad"},
		{"macos private", "/private/var/folders/x1/ab/T/x.txt.", "<tmp>/x.txt."},
		{"windows", `C:\Users\bob\AppData\Local\Temp\go-build123\b001\x.exe failed`, `<tmp>/x.exe failed`},
		{"windows json", `"C:\\Users\\bob\\AppData\\Local\\Temp\\abc\\x.log"`, `"<tmp>/x.log"`},
		{"windows temp", `D:\Windows\Temp\x1\setup.log`, `<tmp>/setup.log`},
		{"not temp", "/home/u/tmp/x.go and /tmp/", "/home/u/tmp/x.go and /tmp/"},

		// pids, line numbers, ports
		{"pids", "pid 1234, PID=55, pid: 9, (node:12345)", "pid N, PID=N, pid: N, (node:N)"},
		{"goroutine", "goroutine 17 [running]:", "goroutine N [running]:"},
		{"go file", "main.go:12:5: undefined: x", "main.go:N:N: undefined: x"},
		{"python", `File "/home/u/x.py", line 42, in <module>`, `File "/home/u/x.py", line N, in <module>`},
		{"node", "at foo (/home/u/x.js:10:3)", "at foo (/home/u/x.js:N:N)"},
		{"node internal", "at node:internal/main/run_main_module:28:49", "at node:internal/main/run_main_module:N:N"},
		{"typescript", "src/x.ts(12,5): error TS2322", "src/x.ts(N,N): error TS2322"},
		{"make", "make: *** [Makefile:12: all] Error 2", "make: *** [Makefile:N: all] Error 2"},
		{"rust gutter", "12 |     let x = 1;", "N | let x = 1;"},
		{"eslint", "  12:5  error  'x' is not defined", "N:N error 'x' is not defined"},
		{"ports", "127.0.0.1:43567 localhost:8080 [::1]:4444 0.0.0.0:9", "127.0.0.1:N localhost:N [::1]:N 0.0.0.0:N"},

		// meaningful numbers stay
		{"status codes", "expected 409, got 500", "expected 409, got 500"},
		{"exit status", "exit status 2", "exit status 2"},
		{"index", "index out of range [5] with length 3", "index out of range [5] with length 3"},
		{"counts", "3 failed, 12 passed in 0.52s", "3 failed, 12 passed in Ns"},
		{"ip with remote port", "dial tcp 10.0.0.5:5432: refused", "dial tcp 10.0.0.5:5432: refused"},
		{"deadline word", "deadline 5 exceeded", "deadline 5 exceeded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Normalize(tt.in)
			if got != tt.want {
				t.Errorf("Normalize(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
			if again := Normalize(got); again != got {
				t.Errorf("not idempotent: %q -> %q", got, again)
			}
		})
	}
}

// sample is a realistic failure: two runs of the same failure that differ
// only in noise, and a run that failed differently.
type sample struct {
	name         string
	run1, run2   string
	other        string
	otherDiffers string // what makes other a different failure
}

var samples = []sample{
	{
		name: "go test",
		run1: "=== RUN   TestLoadConfig\n" +
			"    config_test.go:42: open /tmp/TestLoadConfig3829481/001/config.yaml: no such file or directory\n" +
			"    config_test.go:57: expected 409, got 500\n" +
			"--- FAIL: TestLoadConfig (0.01s)\n" +
			"FAIL\nFAIL\tgithub.com/acme/app/config\t0.123s\nFAIL\n",
		run2: "=== RUN   TestLoadConfig\n" +
			"    config_test.go:44: open /tmp/TestLoadConfig118822/001/config.yaml: no such file or directory\n" +
			"    config_test.go:59: expected 409, got 500\n" +
			"\x1b[31m--- FAIL: TestLoadConfig (0.35s)\x1b[0m\n" +
			"FAIL\nFAIL\tgithub.com/acme/app/config\t1.002s\nFAIL\n",
		other: "=== RUN   TestLoadConfig\n" +
			"    config_test.go:42: open /tmp/TestLoadConfig3829481/001/config.yaml: no such file or directory\n" +
			"    config_test.go:57: expected 404, got 500\n" +
			"--- FAIL: TestLoadConfig (0.01s)\n" +
			"FAIL\nFAIL\tgithub.com/acme/app/config\t0.123s\nFAIL\n",
		otherDiffers: "expected value",
	},
	{
		name: "python traceback",
		run1: "Traceback (most recent call last):\n" +
			"  File \"/tmp/pytest-of-root/pytest-12/test_parse0/app.py\", line 42, in <module>\n" +
			"    main()\n" +
			"  File \"/home/dev/app/parse.py\", line 17, in main\n" +
			"    raise ValueError(f\"cannot parse {obj!r}\")\n" +
			"ValueError: cannot parse <Record object at 0x7f3a2b1c4d50>\n",
		run2: "Traceback (most recent call last):\n" +
			"  File \"/tmp/pytest-of-root/pytest-13/test_parse0/app.py\", line 45, in <module>\n" +
			"    main()\n" +
			"  File \"/home/dev/app/parse.py\", line 19, in main\n" +
			"    raise ValueError(f\"cannot parse {obj!r}\")\n" +
			"ValueError: cannot parse <Record object at 0x7f9e00a1b2c8>\n",
		other: "Traceback (most recent call last):\n" +
			"  File \"/tmp/pytest-of-root/pytest-12/test_parse0/app.py\", line 42, in <module>\n" +
			"    main()\n" +
			"  File \"/home/dev/app/parse.py\", line 17, in main\n" +
			"    raise KeyError(f\"cannot parse {obj!r}\")\n" +
			"KeyError: cannot parse <Record object at 0x7f3a2b1c4d50>\n",
		otherDiffers: "error kind",
	},
	{
		name: "node stack",
		run1: "/home/dev/app/index.js:10\n" +
			"    throw new Error('connection refused: 127.0.0.1:43567');\n" +
			"    ^\n\n" +
			"Error: connection refused: 127.0.0.1:43567\n" +
			"    at Object.<anonymous> (/home/dev/app/index.js:10:11)\n" +
			"    at Module._compile (node:internal/modules/cjs/loader:1358:14)\n" +
			"    at node:internal/main/run_main_module:28:49\n\n" +
			"Node.js v20.11.0\n",
		run2: "/home/dev/app/index.js:12\n" +
			"    throw new Error('connection refused: 127.0.0.1:51234');\n" +
			"    ^\n\n" +
			"Error: connection refused: 127.0.0.1:51234\n" +
			"    at Object.<anonymous> (/home/dev/app/index.js:12:11)\n" +
			"    at Module._compile (node:internal/modules/cjs/loader:1358:14)\n" +
			"    at node:internal/main/run_main_module:28:49\n\n" +
			"Node.js v20.11.0\n",
		other: "/home/dev/app/server.js:10\n" +
			"    throw new Error('connection refused: 127.0.0.1:43567');\n" +
			"    ^\n\n" +
			"Error: connection refused: 127.0.0.1:43567\n" +
			"    at Object.<anonymous> (/home/dev/app/server.js:10:11)\n" +
			"    at Module._compile (node:internal/modules/cjs/loader:1358:14)\n" +
			"    at node:internal/main/run_main_module:28:49\n\n" +
			"Node.js v20.11.0\n",
		otherDiffers: "file name",
	},
	{
		name: "go panic",
		run1: "panic: runtime error: invalid memory address or nil pointer dereference\n" +
			"[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x48f5a2]\n\n" +
			"goroutine 17 [running]:\n" +
			"main.(*Server).handle(0xc000010000, {0x5a1b20, 0xc000020000})\n" +
			"\t/home/dev/app/server.go:42 +0x1d\n" +
			"created by main.main in goroutine 1\n" +
			"\t/home/dev/app/main.go:12 +0x85\n" +
			"exit status 2\n",
		run2: "panic: runtime error: invalid memory address or nil pointer dereference\n" +
			"[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x48f7c0]\n\n" +
			"goroutine 23 [running]:\n" +
			"main.(*Server).handle(0xc0000a2000, {0x5a1d40, 0xc0000b4000})\n" +
			"\t/home/dev/app/server.go:44 +0x3f\n" +
			"created by main.main in goroutine 1\n" +
			"\t/home/dev/app/main.go:12 +0x85\n" +
			"exit status 2\n",
		other: "panic: runtime error: index out of range [5] with length 3\n\n" +
			"goroutine 17 [running]:\n" +
			"main.(*Server).handle(0xc000010000, {0x5a1b20, 0xc000020000})\n" +
			"\t/home/dev/app/server.go:42 +0x1d\n" +
			"created by main.main in goroutine 1\n" +
			"\t/home/dev/app/main.go:12 +0x85\n" +
			"exit status 2\n",
		otherDiffers: "panic kind",
	},
	{
		name: "cargo",
		run1: "   Compiling app v0.1.0 (/tmp/cargo-x1y2/app)\n" +
			"error[E0308]: mismatched types\n" +
			"  --> src/main.rs:12:5\n" +
			"   |\n" +
			"12 |     let x: i32 = \"hello\";\n" +
			"   |            ---   ^^^^^^^ expected `i32`, found `&str`\n\n" +
			"error: could not compile `app` (bin \"app\") due to 1 previous error\n",
		run2: "   Compiling app v0.1.0 (/tmp/cargo-z9w8/app)\n" +
			"error[E0308]: mismatched types\n" +
			"  --> src/main.rs:14:9\n" +
			"   |\n" +
			"14 |         let x: i32 = \"hello\";\n" +
			"   |                ---   ^^^^^^^ expected `i32`, found `&str`\n\n" +
			"error: could not compile `app` (bin \"app\") due to 1 previous error\n",
		other: "   Compiling app v0.1.0 (/tmp/cargo-x1y2/app)\n" +
			"error[E0308]: mismatched types\n" +
			"  --> src/lib.rs:12:5\n" +
			"   |\n" +
			"12 |     let x: i32 = \"hello\";\n" +
			"   |            ---   ^^^^^^^ expected `i32`, found `&str`\n\n" +
			"error: could not compile `app` (lib) due to 1 previous error\n",
		otherDiffers: "file name",
	},
	{
		name:         "service log",
		run1:         "2026-11-21T17:21:49.123Z ERROR request 7f9c2a1e-0b4d-4c1a-9e2f-3b5c6d7e8f90 failed after 1.234s: upstream 10.0.0.7:8080 returned 502 (pid=4412, trace 4bf92f3577b34da6a3ce929d0e0e4736)",
		run2:         "2026-11-21T17:23:02.004Z ERROR request 0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9 failed after 987ms: upstream 10.0.0.7:8080 returned 502 (pid=4519, trace 0af7651916cd43dd8448eb211c80319c)",
		other:        "2026-11-21T17:21:49.123Z ERROR request 7f9c2a1e-0b4d-4c1a-9e2f-3b5c6d7e8f90 failed after 1.234s: upstream 10.0.0.7:8080 returned 503 (pid=4412, trace 4bf92f3577b34da6a3ce929d0e0e4736)",
		otherDiffers: "status code",
	},
}

func TestSamples(t *testing.T) {
	for _, s := range samples {
		t.Run(s.name, func(t *testing.T) {
			sig1, sig2, other := Signature(s.run1), Signature(s.run2), Signature(s.other)
			if sig1 != sig2 {
				t.Errorf("the same failure got two signatures:\n%s\n---\n%s", Normalize(s.run1), Normalize(s.run2))
			}
			if sig1 == other {
				t.Errorf("a different %s got the same signature:\n%s", s.otherDiffers, Normalize(s.other))
			}
		})
	}
}

func TestSameSignature(t *testing.T) {
	tests := []struct{ name, a, b string }{
		{"ansi", "\x1b[31mFAIL\x1b[0m TestFoo", "FAIL TestFoo"},
		{"whitespace", "error:   x\n\n  y  ", "error: x\ny"},
		{"crlf", "a\r\nb\r\n", "a\nb\n"},
		{"rfc3339", "2026-11-21T17:21:49.123Z boom", "2025-01-02T03:04:05Z boom"},
		{"go log", "2026/11/21 17:21:49 boom", "2026/11/22 09:00:01 boom"},
		{"clock", "17:21:49.123 boom", "09:00:01 boom"},
		{"syslog", "Nov 21 17:21:49 host boom", "Dec  1 09:00:01 host boom"},
		{"duration", "ok (0.01s)", "ok (12.5s)"},
		{"duration units", "took 150ms", "took 2m3s"},
		{"duration words", "done in 3.2 seconds", "done in 12 seconds"},
		{"timeout", "context deadline exceeded after 5s", "context deadline exceeded after 10s"},
		{"address", "<Foo object at 0x7f3a2b1c4d50>", "<Foo object at 0x7f9e00a1b2c8>"},
		{"pc offset", "x.go:1 +0x1d", "x.go:1 +0x3f0"},
		{"uuid", "req 550e8400-e29b-41d4-a716-446655440000", "req 0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9"},
		{"sha", "at commit 1a2b3c4", "at commit 9fceb02d0ae598e95dc970b74767f19372d61af8"},
		{"tmp", "open /tmp/TestFoo123/001/x.yaml", "open /tmp/TestFoo987654/002/x.yaml"},
		{"tmp platforms", "open /var/folders/x1/ab/T/TestFoo1/001/x.yaml", `open C:\Users\ci\AppData\Local\Temp\TestFoo9\001\x.yaml`},
		{"pid", "killed pid 1234", "killed pid 99"},
		{"syslog pid", "sshd[1234]: boom", "sshd[77]: boom"},
		{"goroutine", "goroutine 17 [running]:", "goroutine 3 [running]:"},
		{"line col", "main.go:12:5: undefined: x", "main.go:98:1: undefined: x"},
		{"python line", `File "a.py", line 42`, `File "a.py", line 7`},
		{"port", "listen 127.0.0.1:43567", "listen 127.0.0.1:39001"},
		{"localhost port", "GET http://localhost:43567/x", "GET http://localhost:39001/x"},
		{"invalid utf-8", "a\xffb", "a\xfe\xfdb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if sa, sb := Signature(tt.a), Signature(tt.b); sa != sb {
				t.Errorf("different signatures:\n%q -> %q\n%q -> %q", tt.a, Normalize(tt.a), tt.b, Normalize(tt.b))
			}
		})
	}
}

func TestDifferentSignature(t *testing.T) {
	tests := []struct{ name, a, b string }{
		{"expected value", "expected 409, got 500", "expected 404, got 500"},
		{"test name", "--- FAIL: TestFoo (0.01s)", "--- FAIL: TestBar (0.01s)"},
		{"file name", "main.go:12:5: undefined: x", "util.go:12:5: undefined: x"},
		{"temp file name", "open /tmp/TestFoo1/001/go.mod", "open /tmp/TestFoo1/001/go.sum"},
		{"error kind", "ValueError: bad input", "KeyError: bad input"},
		{"identifier", "undefined: x", "undefined: y"},
		{"exit status", "exit status 1", "exit status 2"},
		{"index", "index out of range [5] with length 3", "index out of range [6] with length 3"},
		{"small hex", "code=0x1f", "code=0x2f"},
		{"case", "Error: Not Found", "error: not found"},
		{"line structure", "a\nb", "a b"},
		{"remote port", "dial tcp 10.0.0.5:5432", "dial tcp 10.0.0.5:6379"},
		{"word-only hex", "deadbeef", "deadbeee"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if Signature(tt.a) == Signature(tt.b) {
				t.Errorf("same signature for %q and %q (normal form %q)", tt.a, tt.b, Normalize(tt.a))
			}
		})
	}
}

var sigPattern = regexp.MustCompile(`^[0-9a-f]{16}$`)

func TestSignature(t *testing.T) {
	for _, empty := range []string{"", " ", "\n\t \r\n", "\x1b[0m\x1b[2K", "\ufeff"} {
		if got := Signature(empty); got != "" {
			t.Errorf("Signature(%q) = %q, want empty", empty, got)
		}
	}
	for _, s := range samples {
		if got := Signature(s.run1); !sigPattern.MatchString(got) {
			t.Errorf("Signature(%s) = %q, want 16 lowercase hex characters", s.name, got)
		}
	}
	// Stored signatures must stay comparable across releases: pin one value
	// (the first 16 hex digits of sha256sum of the text, which is already
	// in normal form) so that a change is deliberate.
	if got, want := Signature("expected 409, got 500"), "d013c3186fa0c66a"; got != want {
		t.Errorf("Signature changed: got %q, want %q", got, want)
	}
}

func TestCombine(t *testing.T) {
	a, b, c := Signature("error a"), Signature("error b"), Signature("error c")
	tests := []struct {
		name string
		sigs []string
		want string
	}{
		{"none", nil, ""},
		{"only empty", []string{"", " "}, ""},
		{"one", []string{a}, a},
		{"one with duplicates and empties", []string{"", a, a}, a},
		{"two", []string{a, b}, Combine([]string{b, a})},
		{"duplicates ignored", []string{a, b, a, "", b}, Combine([]string{a, b})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Combine(tt.sigs); got != tt.want {
				t.Errorf("Combine(%q) = %q, want %q", tt.sigs, got, tt.want)
			}
		})
	}
	ab, abc := Combine([]string{a, b}), Combine([]string{a, b, c})
	if !sigPattern.MatchString(ab) || ab == a || ab == b || ab == abc {
		t.Errorf("Combine does not tell sets apart: ab=%q abc=%q a=%q b=%q", ab, abc, a, b)
	}
	in := []string{b, a}
	Combine(in)
	if in[0] != b || in[1] != a {
		t.Errorf("Combine reordered its argument: %q", in)
	}
}

func TestTruncate(t *testing.T) {
	long := strings.Repeat("héllo wörld ", 500) // 7000 bytes, multi-byte runes
	tests := []struct {
		name   string
		text   string
		max    int
		marker bool
	}{
		{"short kept", "boom", 10, false},
		{"exact kept", "boom", 4, false},
		{"zero", "boom", 0, false},
		{"negative", "boom", -1, false},
		{"too small for a marker", long, 20, false},
		{"head and tail", long, 200, true},
		{"large", long, 4096, true},
		{"every size near the marker", long, 40, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Truncate(tt.text, tt.max)
			if len(got) > max(tt.max, 0) && len(tt.text) > tt.max {
				t.Fatalf("len %d > max %d", len(got), tt.max)
			}
			if len(tt.text) <= tt.max && got != tt.text {
				t.Fatalf("a text that fits changed: %q", got)
			}
			if !utf8.ValidString(got) {
				t.Fatalf("cut inside a rune: %q", got)
			}
			if has := strings.Contains(got, "bytes omitted]"); has != tt.marker {
				t.Fatalf("marker present = %v, want %v: %q", has, tt.marker, got)
			}
			if tt.marker {
				head, rest, _ := strings.Cut(got, "\n… [")
				num, tail, _ := strings.Cut(rest, " bytes omitted] …\n")
				if !strings.HasPrefix(tt.text, head) || !strings.HasSuffix(tt.text, tail) || head == "" || tail == "" {
					t.Fatalf("head %q or tail %q is not from the text", head, tail)
				}
				if want := fmt.Sprint(len(tt.text) - len(head) - len(tail)); num != want {
					t.Fatalf("marker says %s bytes omitted, want %s", num, want)
				}
			}
		})
	}
	for m := 0; m <= 120; m++ {
		if got := Truncate(long, m); len(got) > m || !utf8.ValidString(got) || !strings.HasPrefix(long, strings.SplitN(got, "\n…", 2)[0]) {
			t.Fatalf("Truncate(long, %d) = %q", m, got)
		}
	}
}

// TestLargeInput checks the size cap: only the head and the tail of a huge
// text count, the middle is ignored, and the normal form stays idempotent.
func TestLargeInput(t *testing.T) {
	repeatPast := func(line string, n int) string {
		return strings.Repeat(line, n/len(line)+2)
	}
	head := repeatPast("first failure at main.go:12:5 after 1.5s\n", headCap)
	tail := repeatPast("summary: 3 failed\n", tailCap)
	build := func(middle string) string { return head + middle + tail }

	a := build(strings.Repeat("noise A 0xc000123abc\n", 10000))
	b := build(strings.Repeat("other middle\n", 5000))
	if Signature(a) != Signature(b) {
		t.Error("the middle of a large text changed its signature")
	}
	c := strings.TrimSuffix(a, "summary: 3 failed\n") + "summary: 4 failed\n"
	if Signature(a) == Signature(c) {
		t.Error("a change at the end of a large text was ignored")
	}
	d := "different start\n" + a
	if Signature(a) == Signature(d) {
		t.Error("a change at the start of a large text was ignored")
	}

	n := Normalize(a)
	if len(n) > headCap+tailCap+1 {
		t.Errorf("normal form of %d bytes is longer than the cap", len(n))
	}
	if Normalize(n) != n {
		t.Error("Normalize is not idempotent on a large text")
	}

	// A text whose normal form is exactly at the cap must not be cut again.
	exact := strings.Repeat("x", headCap+tailCap+1)
	if got := Normalize(exact); got != exact {
		t.Errorf("a text at the cap was changed to %d bytes", len(got))
	}
	over := exact + "y"
	if got := Normalize(over); len(got) != headCap+tailCap+1 || Normalize(got) != got {
		t.Errorf("a text just over the cap gave %d bytes", len(got))
	}
}

func TestBinaryInput(t *testing.T) {
	// Pseudo-random bytes, deterministic: a binary blob piped into the log.
	b := make([]byte, 1<<20)
	x := uint32(2463534242)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	n := Normalize(string(b))
	if !utf8.ValidString(n) {
		t.Fatal("normal form of binary input is not valid UTF-8")
	}
	if len(n) > headCap+tailCap+1 {
		t.Fatalf("normal form of binary input has %d bytes, more than the cap", len(n))
	}
	if Normalize(n) != n {
		t.Fatal("Normalize is not idempotent on binary input")
	}
	if Signature(string(b)) == "" {
		t.Fatal("binary input has no signature")
	}
}

// benchmarkError is a realistic error of about 2 KB.
var benchmarkError = samples[0].run1 + samples[3].run1 + samples[1].run1 + samples[5].run1 +
	samples[4].run1 + samples[2].run1 + samples[0].run2

func BenchmarkSignature(b *testing.B) {
	b.SetBytes(int64(len(benchmarkError)))
	for b.Loop() {
		Signature(benchmarkError)
	}
}

func BenchmarkSignatureLarge(b *testing.B) {
	text := strings.Repeat(benchmarkError, 200) // about 400 KB, capped to 80 KiB
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Signature(text)
	}
}

func TestBenchmarkErrorSize(t *testing.T) {
	if n := len(benchmarkError); n < 1800 || n > 2600 {
		t.Errorf("benchmark error has %d bytes, want about 2 KB", n)
	}
}

// The passes never write more than they read, so buffer.grow is only a
// safety net; it must still keep what was written.
func TestBufferGrows(t *testing.T) {
	o := newBuffer(2)
	o.writeByte('a')
	o.write("bcd")
	o.writeBytes([]byte("ef"))
	o.writeByte('g')
	if got := string(o.bytes()); got != "abcdefg" {
		t.Fatalf("buffer holds %q, want %q", got, "abcdefg")
	}
}
