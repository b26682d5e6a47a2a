package breaker

import (
	"fmt"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
)

// search is a call with its own arguments and raw result, whose result
// without the arguments is info.
func search(tool, args, info string) lb.ToolCall {
	tc := call(tool, args, "raw:"+args, "", false)
	tc.InfoHash = info
	return tc
}

func TestFishingTrips(t *testing.T) {
	r := newRig(t)
	names := []string{"setup.md", "installation.txt", "INSTALL", "docs/setup.rst", "README.install", "setup.txt"}
	for i, n := range names {
		d := r.tool(search("find_file", n, "no-matches"))
		switch i + 1 {
		case 6:
			r.expect(d, lb.Open, false, "6th search answering the same")
			if d.Detector != lb.DetectorNoNewInfo {
				t.Fatalf("detector %q, want no_new_info", d.Detector)
			}
		case 5:
			r.expect(d, lb.HalfOpen, true, "5th search warns")
		default:
			r.expect(d, lb.Closed, true, fmt.Sprintf("search %d", i+1))
		}
	}
}

func TestEmptyResultsTrip(t *testing.T) {
	r := newRig(t)
	var d lb.Decision
	for i := 0; i < 6; i++ {
		d = r.tool(search("Bash", fmt.Sprintf(`grep -r "config%d" docs`, i), lb.InfoEmpty))
	}
	r.expect(d, lb.Open, false, "6 searches that found nothing")
	if d.Detector != lb.DetectorNoNewInfo {
		t.Fatalf("detector %q, want no_new_info", d.Detector)
	}
}

func TestSearchesThatLearnSomething(t *testing.T) {
	tests := []struct {
		name  string
		calls func(i int) lb.ToolCall
	}{
		{"each answer differs", func(i int) lb.ToolCall {
			return search("Read", fmt.Sprintf("file%d.go", i), fmt.Sprintf("contents-%d", i))
		}},
		{"an edit after every few fruitless searches", func(i int) lb.ToolCall {
			if i%4 == 3 {
				return edit(i)
			}
			return search("Grep", fmt.Sprintf("needle%d", i), "no-matches")
		}},
		{"calls recorded without their information", func(i int) lb.ToolCall {
			return search("Grep", fmt.Sprintf("needle%d", i), "")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t)
			for i := 0; i < 20; i++ {
				r.expect(r.tool(tt.calls(i)), lb.Closed, true, fmt.Sprintf("call %d", i))
			}
		})
	}
}

func TestNoNewInfoOff(t *testing.T) {
	r := newRig(t, func(c *lb.Config) { c.ToolCalls.NoNewInfo = 0 })
	for i := 0; i < 20; i++ {
		r.expect(r.tool(search("find_file", fmt.Sprintf("f%d", i), "no-matches")), lb.Closed, true, fmt.Sprintf("search %d", i))
	}
}

// shellError is a command whose output, word for word, is one of a
// shell's errors, but whose output without the command's own words
// differs from call to call: the words removed are those of each
// command's prose.
func shellError(i int, output string) lb.ToolCall {
	tc := call("Bash", fmt.Sprintf("DISCUSSION\nattempt %d in other words", i), output, "", false)
	tc.InfoHash = fmt.Sprintf("stripped-%d", i)
	return tc
}

func TestRunsWithoutNewInformationTrip(t *testing.T) {
	var wordForWord, inTurn []lb.ToolCall
	for i := 0; i < 6; i++ {
		wordForWord = append(wordForWord, shellError(i, "syntax error: unexpected end of file"))
	}
	// A, B, A, B, …: the run starts again at the first B (new then), and
	// the 5 calls after it bring nothing the last few had not.
	answers := []string{"unexpected EOF", "command not found"}
	for i := 0; i < 7; i++ {
		inTurn = append(inTurn, search("Bash", fmt.Sprintf("attempt-%d", i), answers[i%2]))
	}
	newRig(t).expectTrip(wordForWord, lb.DetectorNoNewInfo, "6 calls answered word for word alike")
	newRig(t).expectTrip(inTurn, lb.DetectorNoNewInfo, "two answers in turn")
}

func TestAnAnswerSeenLongAgoIsNew(t *testing.T) {
	r := newRig(t)
	// Each answer comes back, but only after more others than the
	// threshold: every call brings something the last few did not.
	for i := 0; i < 30; i++ {
		a := fmt.Sprintf("answer-%d", i%(lb.Defaults().ToolCalls.NoNewInfo+1))
		r.expect(r.tool(search("Read", fmt.Sprintf("f%d", i), a)), lb.Closed, true, fmt.Sprintf("call %d", i))
	}
}

func TestANewAnswerEndsTheRun(t *testing.T) {
	r := newRig(t)
	// The run counts the call that brought something new and the calls
	// after it that did not: a search that finds something every 4th
	// call keeps it at 4 (the fruitless ones before it were seen).
	for i := 0; i < 30; i++ {
		a := "no-matches"
		if i%4 == 3 {
			a = fmt.Sprintf("found-%d", i)
		}
		r.expect(r.tool(search("Grep", fmt.Sprintf("needle%d", i), a)), lb.Closed, true, fmt.Sprintf("call %d", i))
	}
}

// The same calls made again in turn (read a, read b, read a, …) are a
// cycle: tool_cycle halts it, at its own count, with its own advice.
func TestACycleIsNoFishing(t *testing.T) {
	var calls []lb.ToolCall
	for i := 0; i < 10; i++ {
		name := []string{"a.go", "b.go"}[i%2]
		calls = append(calls, search("Read", name, "contents of "+name))
	}
	newRig(t).expectTrip(calls, lb.DetectorToolCycle, "an A/B cycle of reads, 5 times")
}

// The calls of a batch run at once and report in any order; the history
// keeps them in a fixed order among their batch. Two searches answering
// the same and a third answering something else, asked again in a
// second batch: what no_new_info counts at the end of each batch is the
// same whatever order the results came in.
func TestNoNewInfoWhateverOrderABatchReports(t *testing.T) {
	calls := []lb.ToolCall{
		search("read", "nope1.go", "enoent"),
		search("bash", "cat nope2.go", "cat-missing"),
		search("read", "nope3.go", "enoent"),
	}
	orders := [][]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}
	var want []int
	for _, order := range orders {
		r := newRig(t)
		var got []int
		for b := 1; b <= 3; b++ {
			for _, i := range order {
				tc := calls[i]
				tc.Batch = b
				r.tool(tc)
			}
			got = append(got, r.s.Counters.NoNewInfo)
		}
		if want == nil {
			want = got
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("results in the order %v: no_new_info %v at the batches' ends, in the order %v: %v", order, got, orders[0], want)
		}
	}
}
