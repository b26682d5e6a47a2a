module github.com/loopbreaker/loopbreaker

go 1.26.8
