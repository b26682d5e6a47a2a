package replay

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	lb "github.com/loopbreaker/loopbreaker"
)

// Outcome is how a labelled session ended.
type Outcome string

const (
	Succeeded Outcome = "succeeded"
	Failed    Outcome = "failed"
	// Exhausted is a failure after the run used up its budget (steps,
	// cost, time): the steps a loop wastes.
	Exhausted Outcome = "exhausted"
)

// Label is what a person knows of a session: its outcome and, when the
// replay cannot tell, the step of its last edit.
type Label struct {
	Outcome  Outcome
	LastEdit int
}

// Labels map a session (its id, its file's base name or its path) to its
// label.
type Labels map[string]Label

// ParseLabels reads a labels file: one session a line, "SESSION OUTCOME
// [LAST_EDIT_STEP]", OUTCOME one of succeeded, failed or exhausted
// (failed after exhausting its budget); blank lines and lines starting
// with # are skipped.
func ParseLabels(r io.Reader) (Labels, error) {
	ls := Labels{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 2 || len(f) > 3 {
			return nil, fmt.Errorf("line %d: want SESSION OUTCOME [LAST_EDIT_STEP], got %q", n, line)
		}
		l := Label{Outcome: Outcome(strings.ToLower(f[1]))}
		switch l.Outcome {
		case Succeeded, Failed, Exhausted:
		case "success", "resolved", "passed":
			l.Outcome = Succeeded
		case "failure", "unresolved":
			l.Outcome = Failed
		default:
			return nil, fmt.Errorf("line %d: outcome %q: want succeeded, failed or exhausted", n, f[1])
		}
		if len(f) == 3 {
			v, err := strconv.Atoi(f[2])
			if err != nil || v < 0 {
				return nil, fmt.Errorf("line %d: last edit step %q: want a step number (tool calls counted from 1)", n, f[2])
			}
			l.LastEdit = v
		}
		ls[f[0]] = l
	}
	return ls, sc.Err()
}

// Find looks the label of a replayed session up: by session id, by the
// file's path, or by its base name without extensions.
func (ls Labels) Find(r Result) (Label, bool) {
	for _, k := range []string{r.Session, r.Path, filepath.Base(r.Path), baseName(r.Path)} {
		if l, ok := ls[k]; ok && k != "" {
			return l, true
		}
	}
	return Label{}, false
}

func baseName(path string) string {
	b := filepath.Base(path)
	if i := strings.IndexByte(b, '.'); i > 0 {
		b = b[:i]
	}
	return b
}

// Setting is one configuration to replay under: its name (the overrides
// that make it, "" for the effective configuration) and the result.
type Setting struct {
	Name   string
	Config lb.Config
}

// Figures sum up the replays of one setting over a labelled set.
type Figures struct {
	Setting  string `json:"setting"`
	Sessions int    `json:"sessions"`
	Halted   int    `json:"halted"`
	// Labelled sessions by outcome (Failed includes Exhausted).
	Succeeded int `json:"succeeded"`
	Failed    int `json:"failed"`
	Exhausted int `json:"exhausted"`
	// SucceededHaltedEarly: successful sessions halted before their last
	// edit (a halt that may have cost the fix).
	SucceededHaltedEarly int `json:"succeeded_halted_before_last_edit"`
	// Steps of failed (and exhausted) sessions, and those a halt cut.
	FailedSteps    int `json:"failed_steps"`
	FailedCut      int `json:"failed_steps_cut"`
	ExhaustedSteps int `json:"exhausted_steps"`
	ExhaustedCut   int `json:"exhausted_steps_cut"`
	// Streaks: sessions that made one call 5 times in a row with the same
	// result (or one edit 5 times in a row); StreaksCaught: those halted
	// by that 5th call.
	Streaks       int `json:"streaks"`
	StreaksCaught int `json:"streaks_halted_by_5th"`
}

// Share is part/whole in percent (0 when whole is 0).
func Share(part, whole int) float64 {
	if whole == 0 {
		return 0
	}
	return 100 * float64(part) / float64(whole)
}

// Tally sums up one setting's results; labels may be nil.
func Tally(setting string, results []Result, labels Labels) Figures {
	f := Figures{Setting: setting}
	for _, r := range results {
		f.Sessions++
		if r.Halt != nil {
			f.Halted++
		}
		if r.Streak5 > 0 {
			f.Streaks++
			if r.Halt != nil && r.Halt.Step <= r.Streak5 {
				f.StreaksCaught++
			}
		}
		l, ok := labels.Find(r)
		if !ok {
			continue
		}
		cut := 0
		if r.Halt != nil {
			cut = r.StepsAfterHalt
		}
		switch l.Outcome {
		case Succeeded:
			f.Succeeded++
			last := l.LastEdit
			if last == 0 {
				last = r.LastEdit
			}
			if r.Halt != nil && r.Halt.Step < last {
				f.SucceededHaltedEarly++
			}
		case Exhausted:
			f.Exhausted++
			f.ExhaustedSteps += r.Steps
			f.ExhaustedCut += cut
			fallthrough
		case Failed:
			f.Failed++
			f.FailedSteps += r.Steps
			f.FailedCut += cut
		}
	}
	return f
}

// Sweep parses --sweep values ("key=a,b,c") into the settings of their
// cartesian product, in the order given: each is a list of key=value
// overrides.
func Sweep(specs []string) ([][]string, error) {
	combos := [][]string{nil}
	seen := map[string]bool{}
	for _, spec := range specs {
		key, vals, ok := strings.Cut(spec, "=")
		key = strings.TrimSpace(key)
		if !ok || key == "" || strings.TrimSpace(vals) == "" {
			return nil, fmt.Errorf("--sweep %q: want KEY=v1,v2,..., e.g. --sweep tool_calls.repeat=3,5,8", spec)
		}
		if seen[key] {
			return nil, fmt.Errorf("--sweep %s given twice: list all its values in one --sweep", key)
		}
		seen[key] = true
		var next [][]string
		for _, c := range combos {
			for _, v := range strings.Split(vals, ",") {
				v = strings.TrimSpace(v)
				if v == "" {
					return nil, fmt.Errorf("--sweep %q: an empty value", spec)
				}
				next = append(next, append(append([]string(nil), c...), key+"="+v))
			}
		}
		combos = next
	}
	if len(combos) > 1000 {
		return nil, fmt.Errorf("--sweep makes %d settings; at most 1000 (sweep fewer keys or values)", len(combos))
	}
	return combos, nil
}

// SortFigures orders figures best first: fewest successful runs halted
// early, then most failed steps cut.
func SortFigures(fs []Figures) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.SucceededHaltedEarly != b.SucceededHaltedEarly {
			return a.SucceededHaltedEarly < b.SucceededHaltedEarly
		}
		return a.FailedCut > b.FailedCut
	})
}
