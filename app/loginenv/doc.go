// Package loginenv reads the login shell's environment, for the servers of
// an mcptray that the desktop started (autostart, a launcher, a
// LaunchAgent): such a process has the session's bare PATH, without what
// the person's shell adds (nvm, asdf, Homebrew, ~/.local/bin), and then
// `npx` or `uvx` is not found.
//
// Read runs `$SHELL -ilc` once, printing `env -0` between two markers, and
// keeps PATH and the variables of an allow-list (Allowed) — never anything
// else, and never a name that looks like a secret. The shell runs in a
// session of its own (a process group, no controlling terminal) with stdin
// from /dev/null; when its timeout (5 s by default) passes, the whole group
// gets SIGTERM (so that rc files' EXIT traps run: pyenv rehash removes its
// lock file in one), then SIGKILL 300 ms later, and Read returns an error,
// as it does when the shell prints no marked environment (junk, an rc file
// that execs another shell). Read starts no goroutine that outlives it but
// that SIGKILL's timer.
//
// Wanted is the rule for when to read at all (see its doc and the README):
// the MCPTRAY_LOGIN_SHELL override, else only without a controlling
// terminal and with $SHELL set. Apply merges what Read returned into an
// environment. Nothing here logs: the values are the caller's to keep
// out of logs (only PATH may be shown).
//
// On Windows nothing is read: Wanted says why (a desktop-started program
// has the user's PATH there), and `mcptray status` shows it as the login
// shell's state "off" with that detail.
package loginenv
