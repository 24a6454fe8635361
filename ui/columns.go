package ui

import "fyne.io/fyne/v2"

// columns lays objects out left to right in fixed-width columns, the last one
// taking the rest of the row, so that the rows of a list line up with each
// other and with a header.
type columns []float32 // widths of every column but the last

func (c columns) MinSize(objects []fyne.CanvasObject) fyne.Size {
	var w, h float32
	for i, o := range objects {
		if i < len(c) {
			w += c[i]
		} else {
			w += o.MinSize().Width
		}
		h = max(h, o.MinSize().Height)
	}
	return fyne.NewSize(w, h)
}

func (c columns) Layout(objects []fyne.CanvasObject, size fyne.Size) {
	var x float32
	for i, o := range objects {
		w := size.Width - x
		if i < len(c) {
			w = c[i]
		}
		o.Move(fyne.NewPos(x, 0))
		o.Resize(fyne.NewSize(max(w, 0), size.Height))
		x += w
	}
}
