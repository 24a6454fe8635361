package ssh

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	defaultLogLines = 100
	maxLogLines     = 1000
	systemdTimeout  = 120 * time.Second
)

var unitName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9@._:\\-]{0,255}$`)

type systemdIn struct {
	aliasArg
	Unit   string `json:"unit" jsonschema:"the unit, like nginx or nginx.service"`
	Action string `json:"action" jsonschema:"status, start, stop, restart or logs"`
	Lines  int    `json:"lines,omitempty" jsonschema:"logs: how many recent journal lines; default 100, at most 1000"`
	Sudo   bool   `json:"sudo,omitempty" jsonschema:"status and logs: read through sudo (some journals need it); start, stop and restart always go through sudo"`
}

type unitStatus struct {
	Unit          string `json:"unit"`
	Description   string `json:"description,omitempty"`
	LoadState     string `json:"load_state" jsonschema:"loaded, not-found, masked, …"`
	ActiveState   string `json:"active_state" jsonschema:"active, inactive, failed, activating, …"`
	SubState      string `json:"sub_state,omitempty"`
	UnitFileState string `json:"unit_file_state,omitempty" jsonschema:"enabled, disabled, static, …"`
	MainPID       int    `json:"main_pid,omitempty"`
	Since         string `json:"since,omitempty" jsonschema:"when it entered the active state"`
}

type systemdOut struct {
	Action string     `json:"action"`
	Status unitStatus `json:"status"`
	Logs   string     `json:"logs,omitempty"`
	Output string     `json:"output,omitempty" jsonschema:"what systemctl printed for start, stop or restart"`
}

func (s *Server) systemdTool(ctx context.Context, req *sdk.CallToolRequest, in systemdIn) (*sdk.CallToolResult, systemdOut, error) {
	if !unitName.MatchString(in.Unit) {
		return nil, systemdOut{}, fmt.Errorf("unit %q is not a unit name", in.Unit)
	}
	switch in.Action {
	case "status", "start", "stop", "restart", "logs":
	default:
		return nil, systemdOut{}, fmt.Errorf("action must be status, start, stop, restart or logs, got %q", in.Action)
	}
	t, err := s.open(ctx, s.asker(req), in.Alias)
	if err != nil {
		return nil, systemdOut{}, err
	}
	defer t.close()
	out := systemdOut{Action: in.Action}
	var sudo *sudoRun
	if in.Sudo || (in.Action != "status" && in.Action != "logs") {
		if sudo, err = s.prepareSudo(ctx, t, ""); err != nil {
			return nil, systemdOut{}, err
		}
	}
	unit := shellQuote(in.Unit)
	switch in.Action {
	case "start", "stop", "restart":
		res, err := s.runStarted(ctx, t, runSpec{cmd: "systemctl " + in.Action + " -- " + unit, sudo: sudo, timeout: systemdTimeout})
		if err != nil {
			return nil, systemdOut{}, err
		}
		out.Output = strings.TrimSpace(res.stdout.String() + res.stderr.String())
		if res.exitCode != 0 {
			return nil, systemdOut{}, fmt.Errorf("systemctl %s %s on alias %s failed (exit %d): %s", in.Action, in.Unit, t.alias.Name, res.exitCode, out.Output)
		}
	case "logs":
		n := in.Lines
		if n <= 0 {
			n = defaultLogLines
		}
		n = min(n, maxLogLines)
		res, err := s.runStarted(ctx, t, runSpec{cmd: fmt.Sprintf("journalctl --no-pager -o short-iso -n %d -u %s", n, unit), sudo: sudo, timeout: systemdTimeout})
		if err != nil {
			return nil, systemdOut{}, err
		}
		if res.exitCode != 0 {
			return nil, systemdOut{}, fmt.Errorf("journalctl on alias %s failed (exit %d): %s", t.alias.Name, res.exitCode, lastLine(res.stderr.String()))
		}
		out.Logs = res.stdout.String()
	}
	// The state after the action (sudo is not needed to read it).
	res, err := s.runStarted(ctx, t, runSpec{
		cmd:     "systemctl show --no-pager --property=Id,Description,LoadState,ActiveState,SubState,UnitFileState,MainPID,ActiveEnterTimestamp -- " + unit,
		timeout: systemdTimeout,
	})
	if err != nil {
		return nil, systemdOut{}, err
	}
	if res.exitCode != 0 {
		return nil, systemdOut{}, fmt.Errorf("systemctl show on alias %s failed (exit %d): %s", t.alias.Name, res.exitCode, lastLine(res.stderr.String()))
	}
	out.Status = parseUnitStatus(in.Unit, res.stdout.String())
	return nil, out, nil
}

func parseUnitStatus(unit, show string) unitStatus {
	st := unitStatus{Unit: unit}
	for _, l := range strings.Split(show, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(l), "=")
		if !ok {
			continue
		}
		switch k {
		case "Id":
			st.Unit = v
		case "Description":
			st.Description = v
		case "LoadState":
			st.LoadState = v
		case "ActiveState":
			st.ActiveState = v
		case "SubState":
			st.SubState = v
		case "UnitFileState":
			st.UnitFileState = v
		case "MainPID":
			st.MainPID, _ = strconv.Atoi(v)
		case "ActiveEnterTimestamp":
			st.Since = v
		}
	}
	return st
}
