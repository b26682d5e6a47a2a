package supervisor

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// In live mode the status line is erased before the agent writes and drawn
// again after each complete line, never in the middle of one.
func TestConsoleLive(t *testing.T) {
	var term bytes.Buffer
	c := newConsole(&term, &term, true)
	c.setStatus("STATUS")
	w := c.stream(&term)
	io.WriteString(w, "hello ")
	io.WriteString(w, "world\n")
	c.line("loopbreaker: a line of its own")
	c.endStream()
	c.clear()
	want := "STATUS" + eraseLine + "hello world\nSTATUS" + eraseLine + "loopbreaker: a line of its own\nSTATUS" + eraseLine
	if got := term.String(); got != want {
		t.Errorf("terminal got\n%q\nwant\n%q", got, want)
	}
}

// Without a terminal nothing is rewritten: the agent's output passes
// through untouched and the loop's lines go to stderr.
func TestConsolePlain(t *testing.T) {
	var out, errs bytes.Buffer
	c := newConsole(&out, &errs, false)
	c.setStatus("STATUS")
	io.WriteString(c.stream(&out), "partial")
	c.line("loopbreaker: done")
	c.endStream()
	if out.String() != "partial" || errs.String() != "loopbreaker: done\n" {
		t.Errorf("stdout %q, stderr %q", out.String(), errs.String())
	}
	if strings.Contains(out.String()+errs.String(), "STATUS") {
		t.Error("a status line was drawn without a terminal")
	}
}
