// Package cli is mcptray's command line: one file per command group, and
// Main, which package main calls with what only it may import (the tray
// app's UI). See README.md for the commands and docs/architecture.md.
package cli
