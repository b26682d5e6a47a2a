package broken

func Double(x int) int { return x * 2 }
