package assets

import (
	_ "embed"

	"fyne.io/fyne/v2"
)

//go:generate go run ./internal/genicons

var (
	//go:embed icon.png
	iconPNG []byte
	//go:embed icon-attention.png
	iconAttentionPNG []byte
	//go:embed icon-error.png
	iconErrorPNG []byte
)

// The tray and window icons, 64x64 PNGs (tray hosts show SVG theme icons
// empty). Icon is the normal state, IconAttention means something waits for
// the person (a pending request), IconError means a server or the config is
// in error.
var (
	Icon          fyne.Resource = fyne.NewStaticResource("icon.png", iconPNG)
	IconAttention fyne.Resource = fyne.NewStaticResource("icon-attention.png", iconAttentionPNG)
	IconError     fyne.Resource = fyne.NewStaticResource("icon-error.png", iconErrorPNG)
)
