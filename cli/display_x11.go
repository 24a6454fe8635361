//go:build !windows && !darwin

package cli

// desktopAlways: here a window needs an X or Wayland display (hasDisplay).
const desktopAlways = false
