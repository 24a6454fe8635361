package wire

import (
	"io"
	"strings"
	"testing"
)

func TestLineReader(t *testing.T) {
	t.Parallel()
	in := "one\r\ntwo\n\n" + strings.Repeat("x", 20) + "\nthree\n" + strings.Repeat("y", 11) + "\nlast"
	lr := NewLineReader(strings.NewReader(in), 10)
	type item struct {
		line    string
		skipped int
	}
	want := []item{{"one", 0}, {"two", 0}, {"", 0}, {"", 20}, {"three", 0}, {"", 11}, {"last", 0}}
	for i, w := range want {
		line, skipped, err := lr.Next()
		if err != nil {
			t.Fatalf("item %d: %v", i, err)
		}
		if string(line) != w.line || skipped != w.skipped {
			t.Errorf("item %d: got (%q, %d), want (%q, %d)", i, line, skipped, w.line, w.skipped)
		}
	}
	if _, _, err := lr.Next(); err != io.EOF {
		t.Errorf("at the end: %v, want EOF", err)
	}
}

func TestLineReaderLongLinesAcrossBuffer(t *testing.T) {
	t.Parallel()
	// Lines longer than bufio's 64 KiB buffer, just under and just over max.
	const max = 200 << 10
	ok := strings.Repeat("a", max)
	over := strings.Repeat("b", max+1)
	lr := NewLineReader(strings.NewReader(ok+"\n"+over+"\n"+"end\n"), max)
	line, skipped, err := lr.Next()
	if err != nil || len(line) != max || skipped != 0 {
		t.Fatalf("line at max: %d bytes, skipped %d, %v", len(line), skipped, err)
	}
	line, skipped, err = lr.Next()
	if err != nil || line != nil || skipped != max+1 {
		t.Fatalf("line over max: %d bytes, skipped %d, %v", len(line), skipped, err)
	}
	line, _, err = lr.Next()
	if err != nil || string(line) != "end" {
		t.Fatalf("after: %q, %v", line, err)
	}
}
