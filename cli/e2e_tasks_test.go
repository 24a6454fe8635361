//go:build linux

package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/app/inbox"
)

// tasks/list pages as the servers do: a session's tasks come in pages no
// larger than the server's (server-everything's store pages by 10), each
// task once, and a cursor mcptray did not give is refused.
func TestTasksListPaged(t *testing.T) {
	peers := npmPeers(t)
	everything := filepath.Join(peers, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	in := startDaemon(t, map[string]any{
		"everything": map[string]any{"command": "node", "args": []string{everything, "stdio"}},
	})
	in.WaitFor("ready", states("everything", "ready"))
	exe, _ := os.Executable()
	p := startPeer(t, []string{"MCPTRAY_TEST_AS_MCPTRAY=1"}, exe, "connect", "--data", in.Data, "--config", in.Config)
	const n = 12
	made := map[string]bool{}
	for range n {
		var res struct {
			Task struct {
				TaskID string `json:"taskId"`
			} `json:"task"`
		}
		b := p.result("tools/call", `{"name":"everything__simulate-research-query","arguments":{"topic":"pages"},"task":{"ttl":60000}}`)
		if json.Unmarshal(b, &res) != nil || res.Task.TaskID == "" {
			t.Fatalf("task-augmented tools/call: %s", b)
		}
		made[res.Task.TaskID] = true
	}
	listed := map[string]int{}
	params, pages := `{}`, 0
	for {
		var page struct {
			Tasks []struct {
				TaskID string `json:"taskId"`
			} `json:"tasks"`
			NextCursor string `json:"nextCursor"`
		}
		b := p.result("tasks/list", params)
		if err := json.Unmarshal(b, &page); err != nil {
			t.Fatal(err)
		}
		pages++
		if len(page.Tasks) > 10 {
			t.Errorf("tasks/list page %d holds %d tasks, more than the server's page", pages, len(page.Tasks))
		}
		for _, tk := range page.Tasks {
			listed[tk.TaskID]++
		}
		if page.NextCursor == "" || pages > n {
			break
		}
		c, _ := json.Marshal(map[string]string{"cursor": page.NextCursor})
		params = string(c)
	}
	for id := range made {
		if listed[id] != 1 {
			t.Errorf("task %s listed %d times over %d pages", id, listed[id], pages)
		}
	}
	if line := p.call("tasks/list", `{"cursor":"not-a-cursor-mcptray-gave"}`); !strings.Contains(string(line), `"code":-32602`) {
		t.Errorf("tasks/list with a cursor mcptray did not give: %s", line)
	}
}

// An assistant that ends its input right after a tasks/list, or after a
// task-augmented call that waits for approval, still gets their answers
// before the session ends.
func TestTasksAnsweredAfterInputEnds(t *testing.T) {
	peers := npmPeers(t)
	everything := filepath.Join(peers, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	in := startDaemon(t, map[string]any{
		"everything": map[string]any{"command": "node", "args": []string{everything, "stdio"}},
		"guarded":    map[string]any{"command": "node", "args": []string{everything, "stdio"}, "x-mcptray": map[string]any{"approve": "all"}},
	})
	in.WaitFor("ready", states("everything", "ready", "guarded", "ready"))
	exe, _ := os.Executable()
	connect := func() *rpcPeer {
		return startPeer(t, []string{"MCPTRAY_TEST_AS_MCPTRAY=1"}, exe, "connect", "--data", in.Data, "--config", in.Config)
	}

	p := connect()
	b := p.result("tools/call", `{"name":"everything__simulate-research-query","arguments":{"topic":"drain"},"task":{"ttl":60000}}`)
	var res struct {
		Task struct {
			TaskID string `json:"taskId"`
		} `json:"task"`
	}
	if json.Unmarshal(b, &res) != nil || res.Task.TaskID == "" {
		t.Fatalf("task-augmented tools/call: %s", b)
	}
	id := p.send("tasks/list", `{}`)
	p.stdin.Close()
	if line := p.wait("tasks/list", id); !strings.Contains(string(line), res.Task.TaskID) {
		t.Errorf("tasks/list sent just before the input ended: %s", line)
	}

	w := watchInbox(t, in.Data)
	q := connect()
	id = q.send("tools/call", `{"name":"guarded__simulate-research-query","arguments":{"topic":"drain"},"task":{"ttl":60000}}`)
	q.stdin.Close()
	req := w.next(inbox.KindApproval)
	if code, _, errs := in.Run("inbox", "answer", req.ID, "--yes"); code != 0 {
		t.Fatal(errs)
	}
	if line := q.wait("tools/call", id); !strings.Contains(string(line), `"taskId"`) {
		t.Errorf("task-augmented call approved after the input ended: %s", line)
	}
}
