package parallel
