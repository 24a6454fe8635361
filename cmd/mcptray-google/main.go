// Command mcptray-google runs mcptray's Google servers (Calendar and
// Gmail) on stdio. mcptray's `serve gcal` and `serve gmail` become it, so
// that the Google API clients live in this binary only (see package
// cli/googleserve and docs/google-accounts.md).
package main

import (
	"os"

	"github.com/mcptray/mcptray/cli/googleserve"
)

func main() {
	os.Exit(googleserve.Main(os.Args[1:], os.Stdout, os.Stderr))
}
