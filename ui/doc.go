// Package ui is mcptray's desktop face, built with Fyne: the tray, the main
// window and the popups. It talks to the core only through the small Core
// interface it declares, and touches Fyne widgets only on the main goroutine
// (one goroutine per core subscription applies updates inside fyne.Do).
package ui
