package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Bounds on one message from the client. The tools take a scope or a
// small context, so a message of a mebibyte is already far more than any
// call needs.
const (
	MaxFrameBytes = 1 << 20
	maxNesting    = 64
)

// NewStreamTransport returns the transport `loopbreaker mcp` serves on:
// newline-delimited JSON-RPC over r and w (the SDK's IOTransport), behind
// a filter. The SDK ends the whole session on the first frame it cannot
// decode; the filter answers such a frame itself with a JSON-RPC error
// (parse error, invalid request, too large, a batch) and passes on only
// frames the SDK can read, so one bad line costs the client one error,
// not the server.
func NewStreamTransport(r io.Reader, w io.Writer) mcp.Transport {
	out := &lockedWriter{w: w}
	pr, pw := io.Pipe()
	go filterFrames(r, pw, out)
	return &mcp.IOTransport{Reader: pr, Writer: out, MaxLineLength: MaxFrameBytes + 1}
}

// lockedWriter keeps the filter's answers and the SDK's messages whole:
// each is one Write of one line.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Close leaves the underlying writer (stdout) open.
func (l *lockedWriter) Close() error { return nil }

// filterFrames copies the frames of r that the SDK can decode to pw, one
// per line, and answers the others on out. It ends at the end of r (the
// client closed stdin) or when the SDK closes its side.
func filterFrames(r io.Reader, pw *io.PipeWriter, out io.Writer) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, tooLong, err := readFrame(br)
		if len(bytes.TrimSpace(line)) > 0 || tooLong {
			if msg := frameProblem(line, tooLong); msg != nil {
				if _, werr := out.Write(msg); werr != nil {
					pw.CloseWithError(werr)
					return
				}
			} else if _, werr := pw.Write(append(bytes.TrimSpace(line), '\n')); werr != nil {
				return // the SDK closed the connection
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				pw.Close()
			} else {
				pw.CloseWithError(err)
			}
			return
		}
	}
}

// readFrame reads one line. A line longer than MaxFrameBytes is read to
// its end without being kept: tooLong is set and line is empty.
func readFrame(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > MaxFrameBytes+1 { // +1: the newline
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return line, tooLong, err
	}
}

// frameProblem returns the JSON-RPC error answering a frame the SDK
// cannot take, or nil when the frame can go on to it.
func frameProblem(line []byte, tooLong bool) []byte {
	switch {
	case tooLong:
		return rpcError(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("the message is longer than %d bytes: send one JSON-RPC message per line, each at most %d bytes", MaxFrameBytes, MaxFrameBytes))
	case !json.Valid(line):
		return rpcError(nil, jsonrpc.CodeParseError, "not valid JSON: send one JSON-RPC message (a JSON object) per line")
	case nesting(line) > maxNesting:
		return rpcError(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("the message is nested more than %d levels deep", maxNesting))
	}
	switch bytes.TrimSpace(line)[0] {
	case '{':
	case '[':
		return rpcError(nil, jsonrpc.CodeInvalidRequest, "JSON-RPC batches are not supported: send one message per line")
	default:
		return rpcError(nil, jsonrpc.CodeInvalidRequest, "a JSON-RPC message is a JSON object")
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		return rpcError(idOf(line), jsonrpc.CodeInvalidRequest, fmt.Sprintf("not a JSON-RPC 2.0 message (%v): want jsonrpc \"2.0\", a method, and an id that is a string or a number", err))
	}
	return nil
}

// nesting is the deepest nesting of objects and arrays in a valid JSON
// text.
func nesting(b []byte) int {
	depth, deepest, inString := 0, 0, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}

// idOf returns the frame's id when it is one JSON-RPC allows (a string or
// a number), so that the client can match the error to its request.
func idOf(line []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &m) != nil || len(m.ID) == 0 {
		return nil
	}
	if c := m.ID[0]; c == '"' || c == '-' || '0' <= c && c <= '9' {
		return m.ID
	}
	return nil
}

func rpcError(id json.RawMessage, code int64, message string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}{code, message}})
	return append(b, '\n')
}
