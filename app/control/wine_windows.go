package control

import (
	"sync"

	"golang.org/x/sys/windows"
)

// underWine says whether this process runs under Wine (ntdll exports
// wine_get_version there), whose named pipes need a workaround
// (socket_windows.go).
var underWine = sync.OnceValue(func() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
})
