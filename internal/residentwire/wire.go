// Package residentwire is what the thin hook client (cmd/loopbreaker-hook)
// and the resident breaker (`loopbreaker resident`) share: where the socket
// is, how a call and its answer are framed on it, and how a binary is told
// from another. It imports the standard library only, so that the client
// stays small and cheap to start.
package residentwire

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"
)

// Magic opens every frame: a peer that speaks something else (a stray
// program, an older protocol) is refused at its first four bytes.
const Magic = "LBR1"

// MaxFrame bounds one frame: the largest hook payload the breaker reads
// (16 MiB) with room for the environment and arguments. A length above it
// is refused before anything is allocated.
const MaxFrame = 20 << 20

// maxItems bounds a list (arguments, environment variables).
const maxItems = 1 << 16

// A Request is one hook call forwarded by the client: what a `loopbreaker
// hook …` process would have been started with.
type Request struct {
	// Build is the fingerprint (Fingerprint) of the loopbreaker binary the
	// client would run in-process: a resident breaker of another build
	// answers Replaced and exits, so that the newer one takes over.
	Build string
	// Args are the command's arguments after the program name ("hook",
	// the CLI's name, then its own).
	Args []string
	// Env is the client's environment; Dir its working directory.
	Env []string
	Dir string
	// Stdin is the payload the agent CLI wrote.
	Stdin []byte
}

// A Response is the answer: what the process would have printed and its
// exit code. Replaced says the resident breaker is of another build and
// is going away (the client starts the right one and asks again); Err is
// a call the resident breaker could not take (the client falls back to
// the in-process path).
type Response struct {
	Code           int
	Stdout, Stderr []byte
	Replaced       bool
	Err            string
}

// WriteRequest writes r as one frame.
func WriteRequest(w io.Writer, r *Request) error {
	var b []byte
	b = appendString(b, r.Build)
	b = appendList(b, r.Args)
	b = appendList(b, r.Env)
	b = appendString(b, r.Dir)
	b = appendBytes(b, r.Stdin)
	return writeFrame(w, b)
}

// ReadRequest reads one frame written by WriteRequest; anything else is
// an error that says what was wrong, never a panic.
func ReadRequest(r io.Reader) (*Request, error) {
	body, err := readFrame(r)
	if err != nil {
		return nil, err
	}
	d := decoder{b: body}
	req := &Request{Build: d.string(), Args: d.list(), Env: d.list(), Dir: d.string(), Stdin: d.bytes()}
	if err := d.finish(); err != nil {
		return nil, fmt.Errorf("a malformed request: %w", err)
	}
	return req, nil
}

// WriteResponse writes r as one frame.
func WriteResponse(w io.Writer, r *Response) error {
	var b []byte
	b = binary.BigEndian.AppendUint32(b, uint32(int32(r.Code)))
	b = appendBytes(b, r.Stdout)
	b = appendBytes(b, r.Stderr)
	flag := byte(0)
	if r.Replaced {
		flag = 1
	}
	b = append(b, flag)
	b = appendString(b, r.Err)
	return writeFrame(w, b)
}

// ReadResponse reads one frame written by WriteResponse.
func ReadResponse(r io.Reader) (*Response, error) {
	body, err := readFrame(r)
	if err != nil {
		return nil, err
	}
	d := decoder{b: body}
	resp := &Response{Code: int(int32(d.uint32()))}
	resp.Stdout, resp.Stderr = d.bytes(), d.bytes()
	resp.Replaced = d.byte() == 1
	resp.Err = d.string()
	if err := d.finish(); err != nil {
		return nil, fmt.Errorf("a malformed answer: %w", err)
	}
	return resp, nil
}

// Ack is the byte a client of the protected breaker sends once it passed
// an answer on to its agent CLI: an answer never acknowledged was lost
// with a client killed before it could pass it on.
const Ack = 'k'

// WriteAck acknowledges an answer.
func WriteAck(w io.Writer) error {
	_, err := w.Write([]byte{Ack})
	return err
}

// ReadAck waits up to wait for a client's acknowledgement.
func ReadAck(c interface {
	io.Reader
	SetReadDeadline(time.Time) error
}, wait time.Duration) error {
	c.SetReadDeadline(time.Now().Add(wait))
	var b [1]byte
	if _, err := io.ReadFull(c, b[:]); err != nil {
		return fmt.Errorf("no acknowledgement: %w", err)
	}
	if b[0] != Ack {
		return fmt.Errorf("not an acknowledgement: %q", b[0])
	}
	return nil
}

func writeFrame(w io.Writer, body []byte) error {
	if len(body) > MaxFrame {
		return fmt.Errorf("a frame of %d bytes is over the bound of %d", len(body), MaxFrame)
	}
	head := make([]byte, 0, 8+len(body))
	head = append(head, Magic...)
	head = binary.BigEndian.AppendUint32(head, uint32(len(body)))
	_, err := w.Write(append(head, body...))
	return err
}

func readFrame(r io.Reader) ([]byte, error) {
	br := bufio.NewReaderSize(r, 8)
	var head [8]byte
	if _, err := io.ReadFull(br, head[:]); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("the peer closed the connection before a frame")
		}
		return nil, fmt.Errorf("reading a frame's header: %w", err)
	}
	if string(head[:4]) != Magic {
		return nil, fmt.Errorf("not a loopbreaker resident frame (first bytes %q, want %q)", head[:4], Magic)
	}
	n := binary.BigEndian.Uint32(head[4:])
	if n > MaxFrame {
		return nil, fmt.Errorf("a frame of %d bytes is over the bound of %d", n, MaxFrame)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(br, body); err != nil {
		return nil, fmt.Errorf("reading a frame of %d bytes: %w", n, err)
	}
	return body, nil
}

func appendBytes(b, s []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

func appendString(b []byte, s string) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

func appendList(b []byte, l []string) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(l)))
	for _, s := range l {
		b = appendString(b, s)
	}
	return b
}

// decoder reads fields off a frame's body; the first short read sets err
// and every later read returns zero values.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) take(n uint64) []byte {
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.b)) {
		d.err = fmt.Errorf("a field of %d bytes where %d are left", n, len(d.b))
		return nil
	}
	out := d.b[:n:n]
	d.b = d.b[n:]
	return out
}

func (d *decoder) uint32() uint32 {
	b := d.take(4)
	if b == nil {
		return 0
	}
	return binary.BigEndian.Uint32(b)
}

func (d *decoder) byte() byte {
	b := d.take(1)
	if b == nil {
		return 0
	}
	return b[0]
}

func (d *decoder) bytes() []byte { return d.take(uint64(d.uint32())) }

func (d *decoder) string() string { return string(d.bytes()) }

func (d *decoder) list() []string {
	n := d.uint32()
	if d.err == nil && n > maxItems {
		d.err = fmt.Errorf("a list of %d items is over the bound of %d", n, maxItems)
	}
	if d.err != nil {
		return nil
	}
	out := make([]string, 0, min(int(n), len(d.b)/4))
	for range n {
		s := d.string()
		if d.err != nil {
			return nil
		}
		out = append(out, s)
	}
	return out
}

func (d *decoder) finish() error {
	if d.err == nil && len(d.b) != 0 {
		d.err = fmt.Errorf("%d bytes after the last field", len(d.b))
	}
	return d.err
}
