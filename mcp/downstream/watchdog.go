package downstream

// WatchdogEnv set to "1" makes RunWatchdogIfRequested run the watchdog
// (watchdog_unix.go; on Windows there is none, watchdog_windows.go).
const WatchdogEnv = "MCPTRAY_WATCHDOG"
