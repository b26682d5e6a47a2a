package redisstore

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/loopbreaker/loopbreaker/internal/redistest"
	"github.com/loopbreaker/loopbreaker/internal/storetest"
)

// go-redis takes some parameters unchecked and then fails on every
// command (pool_size=-1 panics: a CLI exits 2, which scripts read as
// OPEN): Open refuses them, naming the parameter.
func TestURLOptionsChecked(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{})
	for _, q := range []string{
		"pool_size=-1", "min_idle_conns=-1", "max_idle_conns=-3", "max_active_conns=-1",
		"max_retries=-2", "pipeline_pool_size=-2", "protocol=4", "pool_size=many",
	} {
		name, _, _ := strings.Cut(q, "=")
		s, err := Open(Options{URL: srv.URL() + "?" + q})
		if err == nil {
			// Show what go-redis makes of it (a panic, for pool_size=-1).
			err = s.Update(context.Background(), []string{"global"}, storetest.Iterate("x"))
			s.Close()
			t.Fatalf("?%s was accepted (then: %v); want an error naming %s", q, err, name)
		}
		if !strings.Contains(err.Error(), "?"+name+"=") || !strings.Contains(err.Error(), "want") {
			t.Errorf("?%s: %v; want an error naming ?%s= and what it takes", q, err, name)
		}
	}
	for _, q := range []string{"pool_size=4", "max_retries=-1", "protocol=2", "pool_size=0&min_idle_conns=0"} {
		storetest.MustUpdate(t, open(t, srv, Options{URL: srv.URL() + "?" + q}), storetest.Iterate("x"), "global")
	}
	if _, err := Open(Options{URL: "redis://" + srv.Addr() + "/-1"}); err == nil || !strings.Contains(err.Error(), "database -1") {
		t.Errorf("database -1: %v; want it refused", err)
	}
}

// A password in the query (go-redis does not read it there) is refused
// without showing it, saying where it goes.
func TestPasswordInQueryNotShown(t *testing.T) {
	const secret = "s3cret-in-query"
	for _, u := range []string{
		"redis://127.0.0.1:6379/0?password=" + secret,
		"redis://127.0.0.1:6379/0?prefix=a&password=" + secret + "&pool_size=-1",
	} {
		_, err := Open(Options{URL: u})
		if err == nil || strings.Contains(err.Error(), secret) || !strings.Contains(err.Error(), "LOOPBREAKER_REDIS_PASSWORD") {
			t.Errorf("Open(%s): %v; want an error without the password, naming LOOPBREAKER_REDIS_PASSWORD", Redact(u), err)
		}
		if strings.Contains(Redact(u), secret) {
			t.Errorf("Redact shows the password: %s", Redact(u))
		}
	}
}

// A URL that names the ACL user and leaves the password to the
// environment works (it was ignored unless the URL had neither).
func TestUserFromURLPasswordFromEnv(t *testing.T) {
	const secret = "s3cret-from-env"
	srv := redistest.Start(t, redistest.Options{Password: secret})
	s := open(t, srv, Options{URL: "redis://default@" + srv.Addr() + "/0", Password: secret})
	storetest.MustUpdate(t, s, storetest.Iterate("x"), "global")
}

// How fast an outage shows is set by the client's timeouts and retries,
// checked here on the options themselves; the fault tests with a stopped
// or killed redis-server only bound a hang, so that a busy machine does
// not fail them.
func TestClientTimeoutsBoundAnOutage(t *testing.T) {
	u, _ := url.Parse("redis://127.0.0.1:1/0")
	c, read, err := newClient(u, false, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	o := c.(*redis.Client).Options()
	if o.DialTimeout != DefaultDialTimeout || o.ReadTimeout != DefaultIOTimeout || o.WriteTimeout != DefaultIOTimeout ||
		o.PoolTimeout != DefaultPoolTimeout || o.MaxRetries > 0 || o.DialerRetries != 1 || read != DefaultIOTimeout {
		t.Fatalf("client options dial %v read %v write %v pool %v retries %d dial retries %d; want one attempt within %v/%v/%v",
			o.DialTimeout, o.ReadTimeout, o.WriteTimeout, o.PoolTimeout, o.MaxRetries, o.DialerRetries, DefaultDialTimeout, DefaultIOTimeout, DefaultPoolTimeout)
	}
	if DefaultIOTimeout > time.Second || DefaultDialTimeout > time.Second {
		t.Fatalf("timeouts %v/%v: the documented outage answer is within about a second", DefaultDialTimeout, DefaultIOTimeout)
	}
}
