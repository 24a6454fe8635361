package wire

import (
	"bufio"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxLineBytes is the longest stdout line taken as a message. A longer line
// is discarded (and reported) without ending the session.
const MaxLineBytes = 16 << 20

// MaxStderrLineBytes is the longest stderr line kept; longer ones are
// discarded and reported the same way.
const MaxStderrLineBytes = 1 << 20

// MaxLogLineBytes bounds the text of one line handed to Hooks.Log.
const MaxLogLineBytes = 16 << 10

// A lineReader splits a stream into newline-terminated lines of at most max
// bytes, without ever buffering more than max bytes of one line.
type LineReader struct {
	br   *bufio.Reader
	max  int
	buf  []byte // the line being assembled; reused between lines
	head []byte // the first cutEnd bytes of the last line dropped
	tail []byte // its last cutEnd bytes (or fewer), the line ending included
}

// Cut returns the start and the end (at most 4 KiB each) of the line the
// last Next dropped; valid until the following call.
func (r *LineReader) Cut() (head, tail []byte) { return r.head, r.tail }

// Read buffer sizes: a line longer than the buffer is assembled from
// several reads, so these bound only how much a reader holds between
// lines (twenty idle servers hold forty of them).
const (
	readBufBytes       = 16 << 10 // stdout of a server, a stream from an assistant
	stderrReadBufBytes = 4 << 10
)

// NewLineReader reads lines of at most max bytes from r.
func NewLineReader(r io.Reader, max int) *LineReader {
	size := readBufBytes
	if max <= MaxStderrLineBytes {
		size = stderrReadBufBytes
	}
	return &LineReader{br: bufio.NewReaderSize(r, size), max: max}
}

// Next returns the next line without its line ending, "\n" or "\r\n" (a
// Windows program may write either). The line is valid
// until the following call. When a line is longer than max bytes it is
// dropped and next returns its length in skipped instead (line is nil).
// At the end of the stream a last unterminated line is returned first, then
// the read error (io.EOF at a clean end).
func (r *LineReader) Next() (line []byte, skipped int, err error) {
	if cap(r.buf) > 1<<20 {
		r.buf = nil // don't keep a huge buffer around after one huge line
	}
	r.buf = r.buf[:0]
	for {
		frag, err := r.br.ReadSlice('\n')
		switch {
		case skipped > 0:
			skipped += len(frag)
			r.keepTail(frag)
		case len(r.buf)+len(frag) > r.max+1: // +1: the '\n' is not part of the line
			skipped = len(r.buf) + len(frag)
			r.head = append(r.head[:0], r.buf[:min(len(r.buf), cutEnd)]...)
			if n := cutEnd - len(r.head); n > 0 {
				r.head = append(r.head, frag[:min(len(frag), n)]...)
			}
			r.tail = r.tail[:0]
			r.keepTail(r.buf)
			r.keepTail(frag)
			r.buf = r.buf[:0]
		default:
			r.buf = append(r.buf, frag...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil && skipped == 0 && len(r.buf) == 0 {
			return nil, 0, err
		}
		if skipped > 0 {
			if err == nil {
				skipped-- // the '\n'
			}
			return nil, skipped, nil
		}
		return trimEOL(r.buf), 0, nil
	}
}

// keepTail appends b to the kept end of a dropped line, keeping its last
// cutEnd bytes.
func (r *LineReader) keepTail(b []byte) {
	if len(b) >= cutEnd {
		r.tail = append(r.tail[:0], b[len(b)-cutEnd:]...)
		return
	}
	if over := len(r.tail) + len(b) - cutEnd; over > 0 {
		r.tail = append(r.tail[:0], r.tail[over:]...)
	}
	r.tail = append(r.tail, b...)
}

func trimEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b
}

// LogText turns raw output into one line for Hooks.Log: valid UTF-8, at most
// maxLogLineBytes (the rest replaced by a note with the full size).
func LogText(b []byte) string {
	if len(b) <= MaxLogLineBytes {
		return strings.ToValidUTF8(string(b), "\uFFFD")
	}
	cut := MaxLogLineBytes
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return strings.ToValidUTF8(string(b[:cut]), "\uFFFD") + "… (line truncated, " + strconv.Itoa(len(b)) + " bytes)"
}
