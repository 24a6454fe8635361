// Command genicons draws mcptray's tray and window icons: a dark disc holding
// three server bars, with a status dot (green: normal, amber: attention, red:
// error). Run it from package assets with `go generate`; the PNGs it writes are
// committed.
package main

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
)

const (
	size = 64 // pixels per side
	ss   = 4  // supersamples per pixel per axis
)

// shape reports whether the point (x, y), in pixel units, is inside it.
type shape func(x, y float64) bool

func disc(cx, cy, r float64) shape {
	return func(x, y float64) bool { return math.Hypot(x-cx, y-cy) <= r }
}

func roundedRect(x0, y0, x1, y1, r float64) shape {
	return func(x, y float64) bool {
		if x < x0 || x > x1 || y < y0 || y > y1 {
			return false
		}
		cx := math.Max(x0+r, math.Min(x, x1-r))
		cy := math.Max(y0+r, math.Min(y, y1-r))
		return math.Hypot(x-cx, y-cy) <= r
	}
}

// layer is a shape filled with one colour; later layers paint over earlier ones.
type layer struct {
	in  shape
	col color.NRGBA
}

func render(layers []layer) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	for py := 0; py < size; py++ {
		for px := 0; px < size; px++ {
			var r, g, b, a float64
			for sy := 0; sy < ss; sy++ {
				for sx := 0; sx < ss; sx++ {
					x := float64(px) + (float64(sx)+0.5)/ss
					y := float64(py) + (float64(sy)+0.5)/ss
					for i := len(layers) - 1; i >= 0; i-- {
						if l := layers[i]; l.in(x, y) {
							r += float64(l.col.R)
							g += float64(l.col.G)
							b += float64(l.col.B)
							a++
							break
						}
					}
				}
			}
			if a == 0 {
				continue
			}
			img.SetNRGBA(px, py, color.NRGBA{
				R: uint8(r / a), G: uint8(g / a), B: uint8(b / a),
				A: uint8(255 * a / (ss * ss)),
			})
		}
	}
	return img
}

func icon(dot color.NRGBA) *image.NRGBA {
	body := color.NRGBA{0x26, 0x32, 0x38, 0xff}
	bar := color.NRGBA{0xec, 0xef, 0xf1, 0xff}
	layers := []layer{
		{disc(32, 32, 31), body},
		{roundedRect(14, 16, 44, 24, 2.5), bar},
		{roundedRect(14, 28, 44, 36, 2.5), bar},
		{roundedRect(14, 40, 44, 48, 2.5), bar},
		{disc(47, 47, 14), body}, // a ring around the dot
		{disc(47, 47, 11), dot},
	}
	return render(layers)
}

func main() {
	icons := map[string]color.NRGBA{
		"icon.png":           {0x43, 0xa0, 0x47, 0xff},
		"icon-attention.png": {0xff, 0xa0, 0x00, 0xff},
		"icon-error.png":     {0xe5, 0x39, 0x35, 0xff},
	}
	for name, dot := range icons {
		if err := write(name, icon(dot)); err != nil {
			fmt.Fprintln(os.Stderr, "genicons:", err)
			os.Exit(1)
		}
	}
}

func write(name string, img image.Image) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return fmt.Errorf("encoding %s: %w", name, err)
	}
	return f.Close()
}
