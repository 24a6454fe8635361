package assistants

import (
	"bytes"
	"fmt"
	"strings"
)

// contextLines is how many unchanged lines a hunk shows around a change.
const contextLines = 3

// maxLCS bounds the table of the line-matching step (lines × lines of the
// part that differs); past it the part is shown as removed and added.
const maxLCS = 4 << 20

// unifiedDiff is the unified diff of a and b (`diff -u` style, names as
// given), "" when they are equal. The edits here are small and local, so
// the lines both share at the start and the end are set aside first; the
// rest is matched line by line (longest common subsequence).
func unifiedDiff(aName, bName string, a, b []byte) string {
	if bytes.Equal(a, b) {
		return ""
	}
	x, y := splitLines(a), splitLines(b)
	pre := 0
	for pre < len(x) && pre < len(y) && x[pre] == y[pre] {
		pre++
	}
	suf := 0
	for suf < len(x)-pre && suf < len(y)-pre && x[len(x)-1-suf] == y[len(y)-1-suf] {
		suf++
	}
	var ops []op
	for i := 0; i < pre; i++ {
		ops = append(ops, op{' ', x[i]})
	}
	ops = append(ops, middle(x[pre:len(x)-suf], y[pre:len(y)-suf])...)
	for i := len(x) - suf; i < len(x); i++ {
		ops = append(ops, op{' ', x[i]})
	}

	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", aName, bName)
	// Hunks: runs of changes with their context, merged when close.
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start := max(0, i-contextLines)
		end := i
		for {
			for end < len(ops) && ops[end].kind != ' ' {
				end++
			}
			next := end
			for next < len(ops) && ops[next].kind == ' ' && next-end <= 2*contextLines {
				next++
			}
			if next < len(ops) && ops[next].kind != ' ' && next-end <= 2*contextLines {
				end = next
				continue
			}
			end = min(len(ops), end+contextLines)
			break
		}
		writeHunk(&out, ops, start, end)
		i = end
	}
	return out.String()
}

type op struct {
	kind byte // ' ', '-', '+'
	line string
}

// middle matches the lines of x and y that differ.
func middle(x, y []string) []op {
	var ops []op
	if len(x)*len(y) > maxLCS {
		for _, l := range x {
			ops = append(ops, op{'-', l})
		}
		for _, l := range y {
			ops = append(ops, op{'+', l})
		}
		return ops
	}
	// lcs[i][j]: the longest common subsequence of x[i:] and y[j:].
	lcs := make([][]int, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		switch {
		case i < len(x) && j < len(y) && x[i] == y[j]:
			ops = append(ops, op{' ', x[i]})
			i, j = i+1, j+1
		case i < len(x) && (j == len(y) || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, op{'-', x[i]})
			i++
		default:
			ops = append(ops, op{'+', y[j]})
			j++
		}
	}
	return ops
}

func writeHunk(out *strings.Builder, ops []op, start, end int) {
	aStart, bStart := 1, 1
	for _, o := range ops[:start] {
		if o.kind != '+' {
			aStart++
		}
		if o.kind != '-' {
			bStart++
		}
	}
	aLen, bLen := 0, 0
	for _, o := range ops[start:end] {
		if o.kind != '+' {
			aLen++
		}
		if o.kind != '-' {
			bLen++
		}
	}
	if aLen == 0 {
		aStart--
	}
	if bLen == 0 {
		bStart--
	}
	fmt.Fprintf(out, "@@ -%s +%s @@\n", hunkRange(aStart, aLen), hunkRange(bStart, bLen))
	for _, o := range ops[start:end] {
		out.WriteByte(o.kind)
		line, nl := strings.CutSuffix(o.line, "\n")
		out.WriteString(line)
		out.WriteByte('\n')
		if !nl {
			out.WriteString("\\ No newline at end of file\n")
		}
	}
}

func hunkRange(start, n int) string {
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}

// splitLines splits b after each "\n"; the last line may lack one.
func splitLines(b []byte) []string {
	var out []string
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out = append(out, string(b))
			break
		}
		out = append(out, string(b[:i+1]))
		b = b[i+1:]
	}
	return out
}
