// Package keyring keeps mcptray's small secrets in the operating system's
// keyring (Secret Service on Linux, Keychain on macOS, Credential Manager on
// Windows) through github.com/zalando/go-keyring, under the service name
// "mcptray". Entry names are listed in DESIGN.md §9.
//
// Its errors are meant to be shown to a person: a missing entry is
// [ErrNotFound]; a keyring that cannot be reached (no session D-Bus, no
// Secret Service, a locked collection) is an [*UnavailableError] whose
// message says what is missing, and which matches [ErrUnavailable] with
// errors.Is. No error ever contains a secret value.
//
// The ${keyring:NAME} secrets of mcp.json are entries keyring/NAME:
// [SetSecret], [RemoveSecret], [SecretNames] and [Secret] keep and read
// them (the CLI without an instance, app's Core with one), each waiting
// for the keyring at most [Timeout]; where the keyring cannot be searched,
// the names are kept in the entry keyring-index (secrets.go). The Secret
// Service is searched (list_unix.go), and on Windows the Credential
// Manager is enumerated (github.com/danieljoos/wincred, go-keyring's own
// dependency there; list_windows.go): go-keyring stores target
// "mcptray:<name>", which holds at most 2560 bytes ([ErrTooLarge] past it).
// Only the Keychain cannot be listed. The names
// and values they take are app/config's rules (config.CheckSecretName,
// config.MaxSecretValue).
//
// Goroutines: [WithTimeout] (and so every secrets call) runs the keyring
// call in a goroutine of its own, which outlives a timeout until the
// keyring answers; nothing else starts one. The only state is the mutex
// that serialises this process's rewrites of keyring-index. Every call is
// safe for concurrent use.
package keyring
