package app

import (
	"fmt"

	"golang.org/x/sys/windows"
)

// makePrivate gives the data dir a protected DACL that grants the current
// user alone full access, inherited by everything in it (the database,
// the logs, endpoint.json, the lock): on Windows a mode of 0700 does
// nothing. What is in the folder already takes the inherited entry too.
func makePrivate(dir string) error {
	tu, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return fmt.Errorf("reading the current user's SID: %w", err)
	}
	sd, err := windows.SecurityDescriptorFromString(userOnlyTree(tu.User.Sid))
	if err != nil {
		return fmt.Errorf("making %s private: %w", dir, err)
	}
	dacl, _, err := sd.DACL()
	if err != nil {
		return fmt.Errorf("making %s private: %w", dir, err)
	}
	err = windows.SetNamedSecurityInfo(dir, windows.SE_FILE_OBJECT,
		windows.DACL_SECURITY_INFORMATION|windows.PROTECTED_DACL_SECURITY_INFORMATION, nil, nil, dacl, nil)
	if err != nil {
		return fmt.Errorf("making %s private: %w", dir, err)
	}
	return nil
}

// userOnlyTree is the SDDL of a folder that user alone may use, with
// what it holds (the entry is inherited by files and folders: OICI).
func userOnlyTree(user *windows.SID) string { return "D:P(A;OICI;FA;;;" + user.String() + ")" }
