// Command fakeserver is package mcptest's fake MCP servers as a program of
// their own, for tests that need a server binary rather than a re-run test
// binary: the Windows end-to-end test under Wine builds it as echo.exe.
//
//	fakeserver [MODE]
//
// MODE is one of mcptest's modes (default echo: tools echo and add;
// asker: tool login asks for a password by elicitation, and more; see
// package mcptest). MCPTRAY_FAKE_SERVER, when set, wins over MODE.
package main

import (
	"fmt"
	"os"

	"github.com/mcptray/mcptray/mcp/mcptest"
)

func main() {
	if os.Getenv(mcptest.ModeEnv) == "" {
		mode := "echo"
		if len(os.Args) > 1 {
			mode = os.Args[1]
		}
		os.Setenv(mcptest.ModeEnv, mode)
	}
	mcptest.Main()
	fmt.Fprintln(os.Stderr, "fakeserver: no mode")
	os.Exit(2)
}
