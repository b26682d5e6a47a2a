package residentwire

import (
	"bytes"
	"encoding/binary"
	"reflect"
	"strings"
	"testing"
)

func TestRequestAndResponseRoundTrip(t *testing.T) {
	req := &Request{Build: "1:2:3:4", Args: []string{"hook", "claude"}, Env: []string{"HOME=/h", "A="}, Dir: "/p", Stdin: []byte(`{"x":1}`)}
	var buf bytes.Buffer
	if err := WriteRequest(&buf, req); err != nil {
		t.Fatal(err)
	}
	got, err := ReadRequest(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, req) {
		t.Fatalf("got %+v, want %+v", got, req)
	}
	resp := &Response{Code: -3, Stdout: []byte("out"), Stderr: []byte("err"), Replaced: true, Err: "e"}
	buf.Reset()
	if err := WriteResponse(&buf, resp); err != nil {
		t.Fatal(err)
	}
	back, err := ReadResponse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, resp) {
		t.Fatalf("got %+v, want %+v", back, resp)
	}
}

// Whatever a peer sends, reading it is an error that says what was
// wrong, never a panic or an allocation of the length it claims.
func TestGarbageIsAnErrorNotAPanic(t *testing.T) {
	var good bytes.Buffer
	WriteRequest(&good, &Request{Build: "b", Args: []string{"hook", "claude"}, Env: []string{"A=1"}, Dir: "/", Stdin: []byte("{}")})
	frame := func(body []byte) []byte {
		return append(binary.BigEndian.AppendUint32([]byte(Magic), uint32(len(body))), body...)
	}
	cases := map[string][]byte{
		"empty":          nil,
		"wrong magic":    []byte("GET / HTTP/1.1\r\n\r\n"),
		"huge length":    binary.BigEndian.AppendUint32([]byte(Magic), 0xffffffff),
		"short body":     binary.BigEndian.AppendUint32([]byte(Magic), 100),
		"field too long": frame(binary.BigEndian.AppendUint32(nil, 1<<30)),
		"list too long":  frame(binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, 0), 1<<31)),
		"trailing bytes": frame(append(good.Bytes()[8:], 1, 2, 3)),
	}
	for i := 1; i < good.Len(); i += 7 {
		cases["cut at "+string(rune('0'+i%10))+strings.Repeat("'", i/10)] = good.Bytes()[:i]
	}
	for name, in := range cases {
		if _, err := ReadRequest(bytes.NewReader(in)); err == nil {
			t.Errorf("%s: read without an error", name)
		}
		if _, err := ReadResponse(bytes.NewReader(in)); err == nil {
			t.Errorf("%s: read as a response without an error", name)
		}
	}
}

func FuzzReadRequest(f *testing.F) {
	var good bytes.Buffer
	WriteRequest(&good, &Request{Build: "b", Args: []string{"hook"}, Dir: "/"})
	f.Add(good.Bytes())
	f.Fuzz(func(t *testing.T, in []byte) {
		ReadRequest(bytes.NewReader(in))
		ReadResponse(bytes.NewReader(in))
	})
}

func TestDirNeverComesFromAProject(t *testing.T) {
	env := map[string]string{"XDG_RUNTIME_DIR": "/run/user/1000", "XDG_STATE_HOME": "/s", "HOME": "/h"}
	get := func(k string) string { return env[k] }
	for _, c := range []struct{ drop, want string }{
		{"", "/run/user/1000/loopbreaker"},
		{"XDG_RUNTIME_DIR", "/s/loopbreaker/run"},
		{"XDG_STATE_HOME", "/h/.local/state/loopbreaker/run"},
	} {
		if c.drop != "" {
			delete(env, c.drop)
		}
		got, err := Dir(get)
		if err != nil || got != c.want {
			t.Errorf("without %s: Dir = %q, %v; want %q", c.drop, got, err, c.want)
		}
	}
	env["HOME"] = "relative"
	if _, err := Dir(get); err == nil {
		t.Error("a relative HOME gave a directory")
	}
	if _, err := SocketPath("/" + strings.Repeat("d", 120)); err == nil {
		t.Error("a socket path too long for sun_path was accepted")
	}
}
