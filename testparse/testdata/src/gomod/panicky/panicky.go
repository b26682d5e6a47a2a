package panicky

func Index(xs []int, i int) int { return xs[i] }
