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
