package filestore

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
)

func entryLine(t testing.TB, seq uint64, summary string) string {
	t.Helper()
	e := lb.JournalEntry{Seq: seq, Time: t0, Scope: "s", Type: lb.EntryEvent,
		Event: &lb.Event{Kind: lb.EventIteration, Iteration: &lb.Iteration{Summary: summary}}}
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

func TestReadJournal(t *testing.T) {
	big := strings.Repeat("b", 5<<20) // a line far over bufio's and Scanner's defaults
	l1, l2, l3 := entryLine(t, 1, "one"), entryLine(t, 2, big), entryLine(t, 3, "three")
	cases := []struct {
		name    string
		in      string
		want    []uint64
		skipped int
	}{
		{"empty", "", nil, 0},
		{"one line", l1, []uint64{1}, 0},
		{"several MB line", l1 + l2 + l3, []uint64{1, 2, 3}, 0},
		{"garbage in the middle", l1 + "garbage\n" + l2 + "{\"seq\":9\n" + l3, []uint64{1, 2, 3}, 2},
		{"blank lines", "\n" + l1 + "\n  \n" + l3, []uint64{1, 3}, 0},
		{"CRLF", strings.TrimSuffix(l1, "\n") + "\r\n" + l3, []uint64{1, 3}, 0},
		{"truncated last line", l1 + l3[:20], []uint64{1}, 1},
		{"complete last line without newline", l1 + strings.TrimSuffix(l3, "\n"), []uint64{1}, 1},
		{"not entries", "{}\n" + `{"seq":0,"type":"event"}` + "\n" + `{"seq":4}` + "\n" + "[1]\n" + "null\n" + l3, []uint64{3}, 5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []uint64
			skipped, err := ReadJournal(strings.NewReader(c.in), func(e lb.JournalEntry) error {
				got = append(got, e.Seq)
				return nil
			})
			if err != nil || !slices.Equal(got, c.want) || skipped != c.skipped {
				t.Fatalf("ReadJournal: seqs %v skipped %d err %v; want %v skipped %d", got, skipped, err, c.want, c.skipped)
			}
			if c.name == "several MB line" {
				var summary string
				_, _ = ReadJournal(strings.NewReader(c.in), func(e lb.JournalEntry) error {
					if e.Seq == 2 {
						summary = e.Event.Iteration.Summary
					}
					return nil
				})
				if summary != big {
					t.Fatal("big line not read whole")
				}
			}
			// Reading backwards gives the same entries for every limit.
			for limit := 1; limit <= len(c.want)+1; limit++ {
				es, _, err := tailEntries(strings.NewReader(c.in), int64(len(c.in)), limit)
				want := c.want[max(0, len(c.want)-limit):]
				if err != nil || !slices.Equal(seqs(es), want) {
					t.Fatalf("tailEntries(%d) = %v, %v; want %v", limit, seqs(es), err, want)
				}
			}
		})
	}

	stop := errors.New("stop")
	n := 0
	_, err := ReadJournal(strings.NewReader(l1+l3), func(lb.JournalEntry) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Fatalf("fn's error: %v after %d calls", err, n)
	}
	_, err = ReadJournal(io.MultiReader(strings.NewReader(l1), errReader{}), func(lb.JournalEntry) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("reader error: %v", err)
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

// A line over MaxLineBytes is skipped without being held in memory.
func TestReadJournalOverlongLine(t *testing.T) {
	head := `{"seq":2,"type":"event","event":{"kind":"iteration","caller":"`
	r := io.MultiReader(
		strings.NewReader(entryLine(t, 1, "")),
		strings.NewReader(head),
		io.LimitReader(repeatReader('x'), MaxLineBytes),
		strings.NewReader("\"}}\n"),
		strings.NewReader(entryLine(t, 3, "")),
	)
	var got []uint64
	skipped, err := ReadJournal(r, func(e lb.JournalEntry) error {
		got = append(got, e.Seq)
		return nil
	})
	if err != nil || skipped != 1 || !slices.Equal(got, []uint64{1, 3}) {
		t.Fatalf("seqs %v skipped %d err %v", got, skipped, err)
	}
}

type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

func TestScanBackwardLongLines(t *testing.T) {
	// Lines around and over the chunk sizes, to cross every boundary.
	var in strings.Builder
	var want []uint64
	for i, n := range []int{0, 1, 8 << 10, 8<<10 - 60, 100, 40 << 10, 3, 1 << 20, 7} {
		in.WriteString(entryLine(t, uint64(i+1), strings.Repeat("y", n)))
		want = append(want, uint64(i+1))
	}
	data := in.String()
	for limit := 1; limit <= len(want); limit++ {
		es, _, err := tailEntries(strings.NewReader(data), int64(len(data)), limit)
		if err != nil || !slices.Equal(seqs(es), want[len(want)-limit:]) {
			t.Fatalf("limit %d: %v %v", limit, seqs(es), err)
		}
	}
	tail, err := readTail(strings.NewReader(data+`{"seq":10,`), int64(len(data))+10)
	if err != nil || !tail.lastOK || tail.last.Seq != 9 || tail.partialAt != int64(len(data)) {
		t.Fatalf("readTail = %+v, %v", tail, err)
	}
}

func FuzzReadJournal(f *testing.F) {
	f.Add([]byte(entryLine(f, 1, "a")+entryLine(f, 2, "b")), uint64(3), "caller")
	f.Add([]byte("garbage\n"+entryLine(f, 7, "x")+`{"seq":8`), uint64(9), "日本")
	f.Add([]byte("\n\n{}\n[]\nnull\n\"s\"\n"), uint64(0), "\xff")
	f.Add([]byte(`{"seq":1,"type":"snapshot","snapshot":{"state":"OPEN","counters":{}}}`+"\n"), uint64(1<<63), "")
	f.Fuzz(func(t *testing.T, data []byte, seq uint64, caller string) {
		var fwd []lb.JournalEntry
		skipped, err := ReadJournal(bytes.NewReader(data), func(e lb.JournalEntry) error {
			fwd = append(fwd, e)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.Count(data, []byte("\n"))
		if len(data) > 0 && data[len(data)-1] != '\n' {
			lines++
		}
		if len(fwd)+skipped > lines {
			t.Fatalf("%d entries + %d skipped from %d lines", len(fwd), skipped, lines)
		}
		for _, e := range fwd {
			if e.Seq == 0 || e.Type == "" {
				t.Fatalf("entry without seq or type: %+v", e)
			}
		}
		// Backwards gives the same entries and the same count.
		back, backSkipped, err := tailEntries(bytes.NewReader(data), int64(len(data)), len(data)+1)
		if err != nil || backSkipped != skipped || !sameEntries(back, fwd) {
			t.Fatalf("backwards: %d entries, %d skipped, %v; forwards %d, %d", len(back), backSkipped, err, len(fwd), skipped)
		}
		if len(fwd) > 0 {
			last, _, _ := tailEntries(bytes.NewReader(data), int64(len(data)), 1)
			if !sameEntries(last, fwd[len(fwd)-1:]) {
				t.Fatal("tailEntries(1) is not the last entry")
			}
		}

		// A valid line after anything reads back as written.
		want := lb.JournalEntry{Seq: max(seq, 1), Time: t0, Scope: caller, Type: lb.EntryEvent,
			Event: &lb.Event{Kind: lb.EventToolCall, Caller: caller}}
		line, err := json.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		in := slices.Clone(data)
		if len(in) > 0 && in[len(in)-1] != '\n' {
			in = append(in, '\n')
		}
		in = append(append(in, line...), '\n')
		var got []lb.JournalEntry
		if _, err := ReadJournal(bytes.NewReader(in), func(e lb.JournalEntry) error {
			got = append(got, e)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 {
			t.Fatalf("valid line %s not read", line)
		}
		// Compare canonical forms: Marshal turns invalid UTF-8 into \ufffd.
		var canon lb.JournalEntry
		if err := json.Unmarshal(line, &canon); err != nil {
			t.Fatal(err)
		}
		if !sameEntries(got[len(got)-1:], []lb.JournalEntry{canon}) {
			t.Fatalf("round trip of %s gave %+v", line, got[len(got)-1])
		}
	})
}

func sameEntries(a, b []lb.JournalEntry) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}
