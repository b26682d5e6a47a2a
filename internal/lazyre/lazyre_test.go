package lazyre

import (
	"sync"
	"testing"
)

func TestCompilesOnFirstUseOnce(t *testing.T) {
	re := New(`^(\w+)=(\d+)$`)
	if re.re != nil {
		t.Fatal("compiled before first use")
	}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if m := re.FindStringSubmatch("a=1"); len(m) != 3 || m[2] != "1" {
				t.Errorf("match %q", m)
			}
		}()
	}
	wg.Wait()
	if re.MatchString("a=b") {
		t.Fatal("matched a non-number")
	}
}

func TestFindAllString(t *testing.T) {
	re := New(`[a-z]+\d`)
	if got := re.FindAllString("a1 bb2 3 c", -1); len(got) != 2 || got[0] != "a1" || got[1] != "bb2" {
		t.Fatalf("FindAllString = %q, want [a1 bb2]", got)
	}
}

func TestFindStringAndReplaceAllStringFunc(t *testing.T) {
	re := New(`\d+`)
	if got := re.FindString("v12.3"); got != "12" {
		t.Fatalf("FindString = %q, want 12", got)
	}
	if got := re.ReplaceAllStringFunc("a1b22", func(m string) string { return "<" + m + ">" }); got != "a<1>b<22>" {
		t.Fatalf("ReplaceAllStringFunc = %q", got)
	}
}
