// Package ui is mcptray's desktop face, built with Fyne: the tray, the main
// window and the popups. It talks to the core only through the small Core
// interface it declares, and touches Fyne widgets only on the main goroutine
// (one goroutine per core subscription applies updates inside fyne.Do).
//
// Run is the whole lifetime: it must be called on the main goroutine (the OS
// main thread), starts the subscription goroutine, and stops it before it
// returns, once the app has quit (tray Quit, or closing the window when there
// is no tray).
package ui
