package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/mcptray/mcptray/app"
	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/app/control"
)

// flags are the options every command takes.
type flags struct {
	*flag.FlagSet
	config, data string
}

func newFlags(name string) *flags {
	f := newBareFlags(name)
	f.StringVar(&f.config, "config", "", "`FILE` the mcp.json to read (default: $MCPTRAY_CONFIG, else the user config dir)")
	f.StringVar(&f.data, "data", "", "`DIR` the data dir (default: $MCPTRAY_DATA, else the user state dir)")
	return f
}

// newBareFlags is newFlags without --config and --data, for the commands
// that read neither.
func newBareFlags(name string) *flags {
	f := &flags{FlagSet: flag.NewFlagSet(name, flag.ContinueOnError)}
	f.SetOutput(io.Discard)
	return f
}

// parseError is what parse returns for an error of the flag package: a
// helpRequest for -h/--help, else a usage error.
func parseError(f *flags, err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return helpRequest{f.FlagSet}
	}
	return usageError{err.Error()}
}

// parse parses flags (which may come before or after positional args) and
// checks the number of positional args.
func parse(f *flags, args []string, nargs int) error {
	var pos []string
	for {
		if err := f.Parse(args); err != nil {
			return parseError(f, err)
		}
		args = f.Args()
		if len(args) == 0 {
			break
		}
		pos, args = append(pos, args[0]), args[1:]
	}
	if len(pos) != nargs {
		return usageError{fmt.Sprintf("%s takes %d argument(s), got %d", f.Name(), nargs, len(pos))}
	}
	f.Parse(pos) // leave the positional args in f.Args()
	return nil
}

func (f *flags) paths() (configPath, data string, err error) {
	configPath = f.config
	if configPath == "" {
		if configPath, err = config.DefaultPath(); err != nil {
			return "", "", err
		}
	}
	data = f.data
	if data == "" {
		if data, err = app.DefaultDataDir(); err != nil {
			return "", "", err
		}
	}
	return configPath, data, nil
}

// parseDial parses args (nargs positional ones, as parse) and dials the
// running instance: the prologue of the commands that only talk to it.
func (f *flags) parseDial(args []string, nargs int) (*control.Client, error) {
	if err := parse(f, args, nargs); err != nil {
		return nil, err
	}
	return f.dial()
}

func (f *flags) dial() (*control.Client, error) {
	_, data, err := f.paths()
	if err != nil {
		return nil, err
	}
	return control.Dial(data)
}

// printJSON writes v as indented JSON, the shape of every --json output.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
