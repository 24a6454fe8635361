//go:build ignore

// stwrace reproduces a deadlock between a goroutine entering a blocking
// system call and a garbage collection stopping the world.
//
// The parent and a child it starts play ping-pong over two pipes. The
// child reads its stdin in blocking mode (as os.Stdin is when a parent's
// pipe is inherited) in one goroutine and answers each message from a
// goroutine of its own that allocates, so the collector runs often — the
// shape of an MCP stdio server on the go-sdk. If a collection's
// stop-the-world crosses the reader's entry into read(2), the collector
// waits for a goroutine that sleeps in the kernel until the parent's next
// message, and the parent waits for the answer: none comes. The parent
// reports the round that hung (or none) and sends the child SIGQUIT for
// its stacks: one goroutine "[syscall]" in read, one "[stopping the
// world]".
//
//	go run scripts/stwrace.go
//
// On the 2-vCPU VM we develop on, with Go 1.26.8, it hung at round
// 1,509,883 after 3 min 42 s. docs/performance.md has the story; package
// mcp/stdioserver is how mcptray's own servers avoid it. When a Go
// release runs this to the end on a machine where it used to hang, the
// runtime is mended.
package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

var sink [][]byte

func child() {
	var mu sync.Mutex
	in := bufio.NewReaderSize(os.Stdin, 1536)
	for { // the reader: back into read(2) while a handler allocates
		line, err := in.ReadBytes('\n')
		if err != nil {
			return
		}
		go func() { // a handler per message, as the go-sdk starts one
			for i := 0; i < 4; i++ {
				b := make([]byte, 32<<10) // large: each one checks the GC trigger
				mu.Lock()
				sink = append(sink[len(sink)/2:], b)
				mu.Unlock()
			}
			mu.Lock()
			os.Stdout.Write(line)
			mu.Unlock()
		}()
	}
}

func main() {
	if os.Getenv("STWRACE_CHILD") != "" {
		child()
		return
	}
	rounds := 2000000
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "STWRACE_CHILD=1", "GOTRACEBACK=all")
	cmd.Stderr = os.Stderr
	w, _ := cmd.StdinPipe()
	r, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		panic(err)
	}
	out := bufio.NewReader(r)
	msg := []byte("ping\n")
	start := time.Now()
	for i := 0; i < rounds; i++ {
		w.Write(msg)
		done := make(chan error, 1)
		go func() { _, err := out.ReadBytes('\n'); done <- err }()
		select {
		case err := <-done:
			if err != nil {
				panic(err)
			}
		case <-time.After(10 * time.Second):
			fmt.Printf("hung: round %d after %v with no answer for 10 s; the child's stacks follow\n", i, time.Since(start))
			cmd.Process.Signal(syscall.SIGQUIT)
			time.Sleep(time.Second)
			os.Exit(1)
		}
	}
	fmt.Printf("no hang in %d rounds (%v)\n", rounds, time.Since(start))
	w.Close()
	cmd.Wait()
}
