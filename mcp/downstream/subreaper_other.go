//go:build unix && !linux

package downstream

// Subreap does nothing outside Linux: there is no child subreaper, and a
// descendant that leaves its server's group is not followed.
func Subreap() (stop func(), err error) { return func() {}, nil }
