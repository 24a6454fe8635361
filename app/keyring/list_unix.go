//go:build (dragonfly && cgo) || (freebsd && cgo) || linux || netbsd || openbsd

package keyring

import (
	"fmt"
	"slices"
	"strings"

	ss "github.com/zalando/go-keyring/secret_service"
)

// listable: List searches the keyring here.
const listable = true

// List returns the names of the entries (under Service) that start with
// prefix, sorted, without the prefix. Values are not read. On the Secret
// Service it searches the collection go-keyring stores in (the login
// collection, else the default alias) for items with attribute
// service=mcptray and reads each one's username attribute: entries stored
// by other tools (secret-tool store … service mcptray username
// keyring/NAME) are found too.
func List(prefix string) ([]string, error) {
	names, err := listSecretService(prefix)
	if err != nil {
		return nil, fmt.Errorf("listing the keyring: %w", classify(err, ""))
	}
	return names, nil
}

func listSecretService(prefix string) ([]string, error) {
	svc, err := ss.NewSecretService()
	if err != nil {
		return nil, err
	}
	collection := svc.GetLoginCollection()
	if err := svc.Unlock(collection.Path()); err != nil {
		return nil, err
	}
	items, err := svc.SearchItems(collection, map[string]string{"service": Service})
	if err != nil {
		return nil, err
	}
	var names []string
	for _, item := range items {
		v, err := svc.Object("org.freedesktop.secrets", item).GetProperty("org.freedesktop.Secret.Item.Attributes")
		if err != nil {
			return nil, err
		}
		attrs, ok := v.Value().(map[string]string)
		if !ok {
			continue
		}
		if name, ok := strings.CutPrefix(attrs["username"], prefix); ok && name != "" && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names, nil
}
