package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"
)

const usage = `usage:
  testfmt run NAME -- CMD [ARG...]      a phase: CMD's output as it is, then its time
  testfmt compile NAME -- CMD [ARG...]  a phase of go vet -v / go build -v: progress lines
  testfmt [test [-- CMD [ARG...]]]      go test -json from CMD (or stdin): a line per package, the count
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		args = []string{"test"} // go test -json ./pkg | testfmt
	}
	mode, args := args[0], args[1:]
	name := mode
	if mode == "run" || mode == "compile" {
		if len(args) == 0 || args[0] == "--" {
			fmt.Fprintf(stderr, "testfmt %s: missing the phase's NAME\n%s", mode, usage)
			return 2
		}
		name, args = args[0], args[1:]
	}
	var cmd []string
	switch {
	case len(args) > 0 && args[0] == "--" && len(args) > 1:
		cmd = args[1:]
	case len(args) == 0 && mode == "test":
	default:
		fmt.Fprintf(stderr, "testfmt %s: want -- CMD [ARG...], got %q\n%s", mode, args, usage)
		return 2
	}
	// Ctrl+C reaches CMD too (same process group); keep going until its
	// output ends, so the count and what failed still get printed.
	signal.Notify(make(chan os.Signal, 1), os.Interrupt, syscall.SIGTERM)

	start := time.Now()
	fmt.Fprintf(stdout, "==> %s\n", name)
	var code int
	var summary string
	switch mode {
	case "run":
		code = runCmd(cmd, nil, stdout, stderr, nil, nil)
	case "compile":
		f := newCompileFormatter(stdout, start)
		code = runCmd(cmd, stdin, stdout, stderr, f.line, f.tick)
		summary = f.summary() + ", "
	case "test":
		f := newTestFormatter(stdout, start)
		code = runCmd(cmd, stdin, stdout, stderr, f.line, f.tick)
		if !f.done(time.Now(), time.Since(start)) && code == 0 {
			code = 1
		}
	default:
		fmt.Fprintf(stderr, "testfmt: unknown command %q\n%s", mode, usage)
		return 2
	}
	took := duration(time.Since(start))
	if code == 0 {
		fmt.Fprintf(stdout, "==> %s: ok, %s%s\n", name, summary, took)
	} else {
		fmt.Fprintf(stdout, "==> %s: FAILED (exit status %d), %s%s\n", name, code, summary, took)
	}
	return code
}

// runCmd runs cmd (or, without one, reads stdin) and hands each line of
// its output, stdout and stderr in the order written, to line; tick is
// called every second in between. With a nil line, cmd's output goes to
// out as it is. It returns cmd's exit status, 1 when it did not start.
func runCmd(cmd []string, stdin io.Reader, out, stderr io.Writer, line func(string, time.Time), tick func(time.Time)) int {
	var src io.Reader = stdin
	var c *exec.Cmd
	if len(cmd) > 0 {
		c = exec.Command(cmd[0], cmd[1:]...)
		c.Stdin = os.Stdin
		if line == nil {
			c.Stdout, c.Stderr = out, stderr
			return exitCode(c.Run(), stderr)
		}
		pr, pw, err := os.Pipe()
		if err != nil {
			fmt.Fprintf(out, "testfmt: %v\n", err)
			return 1
		}
		c.Stdout, c.Stderr = pw, pw
		err = c.Start()
		pw.Close()
		if err != nil {
			pr.Close()
			fmt.Fprintf(out, "testfmt: starting %s: %v\n", cmd[0], err)
			return 1
		}
		defer pr.Close()
		src = pr
	}
	lines := make(chan string)
	go func() {
		defer close(lines)
		r := bufio.NewReaderSize(src, 64<<10)
		for {
			s, err := r.ReadString('\n')
			if len(s) > 0 {
				if s[len(s)-1] == '\n' {
					s = s[:len(s)-1]
				}
				lines <- s
			}
			if err != nil {
				return
			}
		}
	}()
	ticker := time.NewTicker(time.Second)
	defer ticker.Stop()
	for open := true; open; {
		select {
		case s, ok := <-lines:
			if !ok {
				open = false
				break
			}
			line(s, time.Now())
		case now := <-ticker.C:
			tick(now)
		}
	}
	if c == nil {
		return 0
	}
	return exitCode(c.Wait(), stderr)
}

func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() > 0 {
		return exit.ExitCode()
	}
	fmt.Fprintf(stderr, "testfmt: %v\n", err)
	return 1
}
