//go:build !linux

package downstream

// Subreap does nothing outside Linux: there is no child subreaper. On
// other Unix systems a descendant that leaves its server's group is not
// followed; on Windows the server's Job Object holds all its descendants,
// whatever their parent links (process_windows.go).
func Subreap() (stop func(), err error) { return func() {}, nil }
