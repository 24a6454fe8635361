package mcptest

import (
	"fmt"
	"net"
	"net/http"
	"os"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPEnv, set to a listen address such as 127.0.0.1:0, makes the fake
// serve streamable HTTP there instead of stdio: it prints its URL
// ("http://HOST:PORT/") as the first line on stdout and ignores stdin.
const HTTPEnv = "MCPTRAY_FAKE_HTTP"

// serveHTTP serves the fake of mode over streamable HTTP on addr until
// the process is killed.
func serveHTTP(mode, addr string) int {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "listening:", err)
		return 1
	}
	srv := NewServer(mode)
	fmt.Printf("http://%s/\n", ln.Addr())
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	err = http.Serve(ln, h)
	fmt.Fprintln(os.Stderr, "serving:", err)
	return 1
}
