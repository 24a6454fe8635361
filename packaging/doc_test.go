// Package packaging holds mcptray's install script (install.sh: make
// install, the tarball), the .deb's nfpm config and package.sh (make
// package); its tests check install.sh on a temporary root.
package packaging
