//go:build !linux && !windows

package ui

import "fyne.io/fyne/v2"

// systemNotifications is nil here (macOS): notifications go through Fyne's
// SendNotification, which neither expires them nor withdraws them.
func systemNotifications(fyne.App) notificationService { return nil }
