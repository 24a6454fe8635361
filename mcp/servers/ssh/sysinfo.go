package ssh

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

type sysinfoIn struct {
	Alias string `json:"alias" jsonschema:"the SSH alias (list_aliases shows them)"`
}

type sysinfoOut struct {
	Hostname string     `json:"hostname"`
	OS       string     `json:"os" jsonschema:"the distribution's PRETTY_NAME, or uname -s"`
	Kernel   string     `json:"kernel"`
	Arch     string     `json:"arch"`
	UptimeS  int64      `json:"uptime_s"`
	Load     []float64  `json:"load" jsonschema:"1, 5 and 15 minute load averages"`
	CPUs     int        `json:"cpus,omitempty"`
	Memory   memoryInfo `json:"memory"`
	Disks    []diskInfo `json:"disks"`
}

type memoryInfo struct {
	TotalBytes     int64 `json:"total_bytes"`
	AvailableBytes int64 `json:"available_bytes"`
	UsedBytes      int64 `json:"used_bytes"`
	SwapTotalBytes int64 `json:"swap_total_bytes"`
	SwapFreeBytes  int64 `json:"swap_free_bytes"`
}

type diskInfo struct {
	Filesystem string `json:"filesystem"`
	Mount      string `json:"mount"`
	SizeBytes  int64  `json:"size_bytes"`
	UsedBytes  int64  `json:"used_bytes"`
	AvailBytes int64  `json:"avail_bytes"`
	UsePercent int    `json:"use_percent"`
}

// sysinfoScript prints sections for parseSysinfo; each part may fail alone.
const sysinfoScript = `echo '@@uname'; uname -n; uname -s; uname -r; uname -m
echo '@@os'; cat /etc/os-release 2>/dev/null
echo '@@uptime'; cat /proc/uptime 2>/dev/null
echo '@@load'; cat /proc/loadavg 2>/dev/null
echo '@@cpus'; getconf _NPROCESSORS_ONLN 2>/dev/null
echo '@@mem'; cat /proc/meminfo 2>/dev/null
echo '@@df'; df -P -k 2>/dev/null
exit 0`

func (s *Server) sysinfoTool(ctx context.Context, req *sdk.CallToolRequest, in sysinfoIn) (*sdk.CallToolResult, sysinfoOut, error) {
	t, err := s.open(ctx, s.asker(req), in.Alias)
	if err != nil {
		return nil, sysinfoOut{}, err
	}
	defer t.close()
	res, err := s.run(ctx, t, runSpec{cmd: sysinfoScript, timeout: 30 * time.Second})
	if err != nil {
		return nil, sysinfoOut{}, err
	}
	if res.timedOut {
		return nil, sysinfoOut{}, errors.New("sysinfo took longer than 30 s (a hung mount?)")
	}
	return nil, parseSysinfo(res.stdout.String()), nil
}

// parseSysinfo reads sysinfoScript's output.
func parseSysinfo(out string) sysinfoOut {
	info := sysinfoOut{Load: []float64{}, Disks: []diskInfo{}}
	sections := map[string][]string{}
	var cur string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "@@") {
			cur = l[2:]
			continue
		}
		sections[cur] = append(sections[cur], l)
	}
	if u := sections["uname"]; len(u) >= 4 {
		info.Hostname, info.OS, info.Kernel, info.Arch = u[0], u[1], u[2], u[3]
	}
	for _, l := range sections["os"] {
		if v, ok := strings.CutPrefix(l, "PRETTY_NAME="); ok {
			info.OS = strings.Trim(v, `"'`)
		}
	}
	if f := fieldsOf(sections["uptime"]); len(f) > 0 {
		up, _ := strconv.ParseFloat(f[0], 64)
		info.UptimeS = int64(up)
	}
	if f := fieldsOf(sections["load"]); len(f) >= 3 {
		for _, x := range f[:3] {
			v, _ := strconv.ParseFloat(x, 64)
			info.Load = append(info.Load, v)
		}
	}
	if f := fieldsOf(sections["cpus"]); len(f) > 0 {
		info.CPUs, _ = strconv.Atoi(f[0])
	}
	mem := map[string]int64{}
	for _, l := range sections["mem"] {
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		f := strings.Fields(v)
		if len(f) == 0 {
			continue
		}
		n, _ := strconv.ParseInt(f[0], 10, 64)
		if len(f) > 1 && f[1] == "kB" {
			n *= 1024
		}
		mem[k] = n
	}
	info.Memory = memoryInfo{
		TotalBytes:     mem["MemTotal"],
		AvailableBytes: mem["MemAvailable"],
		SwapTotalBytes: mem["SwapTotal"],
		SwapFreeBytes:  mem["SwapFree"],
	}
	if info.Memory.AvailableBytes == 0 {
		info.Memory.AvailableBytes = mem["MemFree"] + mem["Buffers"] + mem["Cached"]
	}
	info.Memory.UsedBytes = info.Memory.TotalBytes - info.Memory.AvailableBytes
	for i, l := range sections["df"] {
		f := strings.Fields(l)
		if i == 0 || len(f) < 6 {
			continue // the header
		}
		switch f[0] {
		case "tmpfs", "devtmpfs", "udev", "none", "shm", "efivarfs":
			continue
		}
		size, _ := strconv.ParseInt(f[1], 10, 64)
		used, _ := strconv.ParseInt(f[2], 10, 64)
		avail, _ := strconv.ParseInt(f[3], 10, 64)
		pct, _ := strconv.Atoi(strings.TrimSuffix(f[4], "%"))
		if size == 0 {
			continue
		}
		info.Disks = append(info.Disks, diskInfo{
			Filesystem: f[0], Mount: strings.Join(f[5:], " "),
			SizeBytes: size * 1024, UsedBytes: used * 1024, AvailBytes: avail * 1024, UsePercent: pct,
		})
	}
	return info
}

func fieldsOf(lines []string) []string {
	return strings.Fields(strings.Join(lines, " "))
}
