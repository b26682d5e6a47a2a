package loopbreaker

import "testing"

// A store setting names Redis only by its scheme; anything else is a
// directory or an error the session reports.
func TestStoreIsRedis(t *testing.T) {
	for store, want := range map[string]bool{
		"":                         false,
		"redis://localhost:6379/0": true,
		"rediss://cache:6380/1":    true,
		"REDIS://host":             false,
		"memcached://host":         false,
		"/var/lib/loopbreaker":     false,
		"redis:/host":              false,
	} {
		if got := StoreIsRedis(store); got != want {
			t.Errorf("StoreIsRedis(%q) = %v, want %v", store, got, want)
		}
	}
}
