// Package assets holds mcptray's embedded icons and other static files. No
// logic lives here: the icons are PNGs drawn by internal/genicons (run `go
// generate` in this folder) and committed.
package assets
