// Package testkit is for tests only: the one way a test waits for
// something. WaitFor polls a condition until it holds or a generous
// deadline passes; Within runs a function and fails the test if it does
// not return in time (a read that would block for ever, say). Golden
// compares what a test made with a file under testdata/, or rewrites it
// when the package's -update flag is set. TempDir is t.TempDir that
// also cleans up under Wine.
//
// Neither starts a goroutine that outlives its call except Within's, which
// runs f and is left behind only when f blocks past the deadline (the test
// has failed by then). The kit imports no package of the module, so any
// package's tests may use it (internal/depcheck says so).
package testkit
