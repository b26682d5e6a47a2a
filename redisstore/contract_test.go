package redisstore

import (
	"fmt"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/internal/redistest"
	"github.com/loopbreaker/loopbreaker/internal/storetest"
)

func TestStoreContract(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{})
	n := 0
	storetest.Run(t, func(t *testing.T) lb.Store {
		n++ // a prefix per subtest: each starts empty
		return open(t, srv, Options{Prefix: fmt.Sprintf("contract-%d", n)})
	})
}
