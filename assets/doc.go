// Package assets holds mcptray's embedded icons and other static files. No
// logic lives here.
package assets
