// Package packaging holds mcptray's install script (install.sh: make
// install, the tarball), the .deb's nfpm config and package.sh (make
// package), and the Windows packages: package-windows.sh and the MSI's
// windows/mcptray.wxs (make package-windows). Its tests check install.sh on
// a temporary root; scripts/package-windows-check.sh checks the Windows
// ones.
package packaging
