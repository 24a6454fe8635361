package cli

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// What `make build` stamps with -ldflags -X, for builds that carry no VCS
// information (GOFLAGS=-buildvcs=false, or a build outside git): the
// output of `git describe --tags --dirty` (empty without a tag), the
// commit, and "true" when the tree had changes.
var (
	stampedVersion  string
	stampedCommit   string
	stampedModified string
)

// buildInfo is what `mcptray --version` prints.
type buildInfo struct {
	Version  string // the module version (a tag, a pseudo-version or "(devel)")
	Commit   string // "" when unknown
	Modified bool   // the tree had changes
	Time     string // the commit's time, when known
	Go       string // the Go version and platform
}

// readBuildInfo reads the build info Go stamps into the binary
// (vcs.revision, vcs.modified, vcs.time), falling back to what the
// Makefile stamped.
func readBuildInfo() buildInfo {
	b := buildInfo{Version: "(devel)", Go: runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			b.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				b.Commit = s.Value
			case "vcs.modified":
				b.Modified = s.Value == "true"
			case "vcs.time":
				b.Time = s.Value
			}
		}
	}
	if b.Commit == "" && stampedCommit != "" {
		b.Commit, b.Modified = stampedCommit, stampedModified == "true"
	}
	if b.Version == "(devel)" && stampedVersion != "" {
		b.Version = stampedVersion
	}
	return b
}

func (b buildInfo) String() string {
	commit := "unknown (built without VCS information; `make build` stamps it)"
	if b.Commit != "" {
		commit = b.Commit
		if b.Modified {
			commit += " (with uncommitted changes)"
		}
		if b.Time != "" {
			commit += ", " + b.Time
		}
	}
	return fmt.Sprintf("mcptray %s\ncommit  %s\ngo      %s\n", b.Version, commit, b.Go)
}

// cmdVersion is `mcptray version` and `mcptray --version`.
func cmdVersion(args []string, stdout io.Writer) error {
	if err := parse(newBareFlags("version"), args, 0); err != nil {
		return err
	}
	_, err := fmt.Fprint(stdout, readBuildInfo())
	return err
}
