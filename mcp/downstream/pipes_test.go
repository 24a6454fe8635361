package downstream

import (
	"os"
	"testing"
)

// twoPipes makes the two pipes of a stdio session: in (read by the
// serving side, written by the other) and out (the other way).
func twoPipes(t testing.TB) (inR, inW, outR, outW *os.File) {
	t.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err = os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	return inR, inW, outR, outW
}
