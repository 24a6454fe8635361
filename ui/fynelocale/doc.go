// Package fynelocale keeps Fyne from logging an error at start on systems
// whose locale is C with a codeset, such as Debian's and Docker's default
// LANG=C.UTF-8.
//
// Fyne reads the locale when its lang package is initialized (through
// github.com/jeandeaual/go-locale, which knows "C" and "POSIX" but not
// "C.UTF-8") and logs "Error parsing user locale C" — on every command of
// the tray binary, `mcptray connect` included, whose stderr an assistant
// keeps. This package's init runs before Fyne's lang package: Go
// initializes packages in import-path order among those whose imports are
// done, and lang waits for github.com/nicksnyder/go-i18n, which sorts
// after this package and needs os, this package's only import. While
// Fyne initializes, the variable that names the locale reads "C", which
// go-locale takes for "no locale" (English); Restore, called from the main
// package's init, puts the person's value back before anything else runs,
// so servers started later see it unchanged.
//
// The tray binary's test TestNoLocaleErrorUnderCUTF8 (in
// cli/e2e_build_test.go) runs a command with
// LANG=C.UTF-8 and fails if the error comes back (say, if Fyne's imports
// change and the order above no longer holds).
package fynelocale
