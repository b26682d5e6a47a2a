package harness

// Calc is a Go module with two failing tests (Add subtracts, Mul adds):
// the repository of the scenarios that need nothing more.
func Calc() map[string]string {
	return map[string]string{
		"go.mod": "module example.com/calc\n\ngo 1.21\n",
		"calc.go": `package calc

// Add returns the sum of a and b.
func Add(a, b int) int {
	return a - b
}

// Mul returns the product of a and b.
func Mul(a, b int) int {
	return a + b
}
`,
		"calc_test.go": `package calc

import "testing"

func TestAdd(t *testing.T) {
	if got := Add(2, 3); got != 5 {
		t.Errorf("Add(2, 3) = %d, want 5", got)
	}
}

func TestMul(t *testing.T) {
	if got := Mul(3, 4); got != 12 {
		t.Errorf("Mul(3, 4) = %d, want 12", got)
	}
}
`,
	}
}

// Calc4 is a Go module with four broken functions (Add, Sub, Mul, Div)
// and a test each: work that can progress one test at a time.
func Calc4() map[string]string {
	return map[string]string{
		"go.mod": "module example.com/calc\n\ngo 1.21\n",
		"calc.go": `package calc

// Add returns a+b.
func Add(a, b int) int { return a - b }

// Sub returns a-b.
func Sub(a, b int) int { return a + b }

// Mul returns a*b.
func Mul(a, b int) int { return a + b }

// Div returns a/b.
func Div(a, b int) int { return a * b }
`,
		"calc_test.go": `package calc

import "testing"

func TestAdd(t *testing.T) {
	if got := Add(2, 3); got != 5 {
		t.Fatalf("Add(2, 3) = %d, want 5", got)
	}
}

func TestSub(t *testing.T) {
	if got := Sub(5, 3); got != 2 {
		t.Fatalf("Sub(5, 3) = %d, want 2", got)
	}
}

func TestMul(t *testing.T) {
	if got := Mul(4, 3); got != 12 {
		t.Fatalf("Mul(4, 3) = %d, want 12", got)
	}
}

func TestDiv(t *testing.T) {
	if got := Div(12, 3); got != 4 {
		t.Fatalf("Div(12, 3) = %d, want 4", got)
	}
}
`,
	}
}
