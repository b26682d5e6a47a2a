package calc

func Add(a, b int) int { return a + b }

// Sub is deliberately wrong so the tests fail.
func Sub(a, b int) int { return a + b }
