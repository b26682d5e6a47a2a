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

// Calc4Fixes are the four edits (old line, new line) that each fix one
// function of Calc4's calc.go, in the order of its tests.
var Calc4Fixes = [4][2]string{
	{"func Add(a, b int) int { return a - b }", "func Add(a, b int) int { return a + b }"},
	{"func Sub(a, b int) int { return a + b }", "func Sub(a, b int) int { return a - b }"},
	{"func Mul(a, b int) int { return a + b }", "func Mul(a, b int) int { return a * b }"},
	{"func Div(a, b int) int { return a * b }", "func Div(a, b int) int { return a / b }"},
}

// Calc4Py is Calc4 in Python (calc.py and test_calc.py), for pytest.
func Calc4Py() map[string]string {
	return map[string]string{
		"calc.py": `def add(a, b):
    return a - b


def sub(a, b):
    return a + b


def mul(a, b):
    return a + b


def div(a, b):
    return a * b
`,
		"test_calc.py": `from calc import add, sub, mul, div


def test_add():
    assert add(2, 3) == 5


def test_sub():
    assert sub(5, 3) == 2


def test_mul():
    assert mul(4, 3) == 12


def test_div():
    assert div(12, 3) == 4
`,
	}
}

// Calc4PyFixes are the four edits (function, old expression, new
// expression) that each fix one function of Calc4Py's calc.py.
var Calc4PyFixes = [4][3]string{
	{"add", "a - b", "a + b"},
	{"sub", "a + b", "a - b"},
	{"mul", "a + b", "a * b"},
	{"div", "a * b", "a // b"},
}
