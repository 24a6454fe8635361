//go:build !unix

package stdioserver

import (
	"io"
	"os"
)

func stdin() io.ReadCloser { return os.Stdin }
