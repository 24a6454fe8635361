package keyring

import (
	"fmt"
	"slices"
	"strings"

	"github.com/danieljoos/wincred"
)

// listable: List enumerates the keyring here.
const listable = true

// List returns the names of the entries (under Service) that start with
// prefix, sorted, without the prefix. On Windows it enumerates the
// Credential Manager's generic credentials whose target name is
// "mcptray:<prefix>…", as go-keyring's wincred provider names them
// (service ":" username); entries other tools stored under that name are
// found too. The values come with the enumeration and are dropped.
func List(prefix string) ([]string, error) {
	creds, err := wincred.FilteredList(Service + ":" + prefix + "*")
	if err != nil {
		return nil, fmt.Errorf("listing the keyring: %w", classify(err, ""))
	}
	var names []string
	for _, c := range creds {
		clear(c.CredentialBlob)
		name, ok := strings.CutPrefix(c.TargetName, Service+":"+prefix)
		if ok && name != "" && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names, nil
}
