package harness

import "github.com/loopbreaker/loopbreaker/e2e/fakemodel"

// OpenAIRun is one process of an agent CLI that talks to the fake
// OpenAI-style API, and the model requests it made.
type OpenAIRun struct {
	Result
	API *fakemodel.OpenAI
}
