package calc

import "testing"

func TestAdd(t *testing.T) {
	if got := Add(2, 3); got != 5 {
		t.Fatalf("Add(2, 3) = %d, want 5", got)
	}
}

func TestSub(t *testing.T) {
	if got := Sub(5, 3); got != 2 {
		t.Errorf("Sub(5, 3) = %d, want 2", got)
	}
	t.Log("checked Sub")
}

func TestTable(t *testing.T) {
	cases := []struct {
		name string
		a, b int
		want int
	}{
		{"zero", 0, 0, 0},
		{"positive numbers", 1, 2, 3},
		{"negative", -1, -1, -3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Add(c.a, c.b); got != c.want {
				t.Errorf("Add(%d, %d) = %d, want %d\nsecond line of detail", c.a, c.b, got, c.want)
			}
		})
	}
}

func TestNested(t *testing.T) {
	t.Run("outer", func(t *testing.T) {
		t.Run("inner_ok", func(t *testing.T) {})
		t.Run("inner_bad", func(t *testing.T) { t.Error("inner failure") })
	})
}

func TestSkipped(t *testing.T) {
	t.Skip("not ready yet")
}

func TestParentOwn(t *testing.T) {
	t.Log("before children")
	t.Run("child", func(t *testing.T) { t.Error("child failed") })
	t.Error("parent failed on its own")
}
