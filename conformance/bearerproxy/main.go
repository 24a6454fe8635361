package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// tokenEnv names the environment variable holding the bearer token.
const tokenEnv = "BEARER_TOKEN"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv(tokenEnv), os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "bearerproxy:", err)
		var u usageError
		if errors.As(err, &u) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// usageError is a bad flag or argument (exit code 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// run listens, prints the proxy's base URL on stdout, and serves until ctx
// ends. Errors while serving are logged to stderr.
func run(ctx context.Context, args []string, token string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bearerproxy", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	target := fs.String("target", "", "base URL to forward to: http://LOOPBACK:PORT")
	listen := fs.String("listen", "127.0.0.1:0", "loopback address to listen on")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	u, err := parseTarget(*target)
	if err != nil {
		return usageError{err.Error()}
	}
	if token == "" {
		return usageError{tokenEnv + " is empty"}
	}
	host, _, err := net.SplitHostPort(*listen)
	if err != nil {
		return usageError{fmt.Sprintf("-listen %q: %v", *listen, err)}
	}
	if !isLoopback(host) {
		return usageError{fmt.Sprintf("-listen %q: address must be loopback", *listen)}
	}

	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", *listen, err)
	}
	_, selfPort, _ := net.SplitHostPort(ln.Addr().String())
	logger := log.New(stderr, "bearerproxy: ", log.LstdFlags)
	srv := &http.Server{
		Handler:           newHandler(u, token, selfPort, logger),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          logger,
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	fmt.Fprintf(stdout, "http://%s\n", ln.Addr())

	select {
	case err := <-errc:
		return fmt.Errorf("serving: %w", err)
	case <-ctx.Done():
	}
	// Open SSE streams never end on their own: give them a moment, then cut.
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
	return nil
}
