# mcptray's commands. The README's are `make run` and `make test`.
#
# One set of build flags per kind of build: changing -trimpath, -tags or -race
# between steps rebuilds Fyne's cgo packages (≈ 4 min cold on 2 cores). The Go
# build cache (go env GOCACHE) keeps them between runs.

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
# The go in /usr/local/go counts even when PATH misses it (sudo, cron).
export PATH := $(PATH):/usr/local/go/bin

GO ?= go
BIN := bin/mcptray
# mcptray without the tray app (no Fyne, no cgo: a static binary) for
# machines without a desktop.
HEADLESS_BIN := bin/mcptray-headless
HEADLESS := env CGO_ENABLED=0 $(GO)
# mcptray's Google servers (serve gcal|gmail) run in this binary, beside
# either mcptray: the Google API clients stay out of the daemon and the
# tray app (docs/google-accounts.md). Pure Go, like the headless build.
GOOGLE_BIN := bin/mcptray-google
SESSION := scripts/desktop-session.sh
# test and vet build with -race both, so they share one build of the cgo
# packages; build, run and bench build without it.
RACE := -race
TESTFLAGS ?= $(RACE) -count=1 -timeout 20m
# Tests leave screenshots and logs worth a look here.
export MCPTRAY_ARTIFACTS ?= $(CURDIR)/artifacts
BENCHTIME ?= 500ms
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
# make test's formatter (internal/testfmt): standard library only, built
# once (seconds cold), then from the build cache.
TESTFMT := .cache/testfmt

.PHONY: all deps build build-headless build-windows build-macos-headless package-macos google run test fmt-check vet lint bench fuzz clean conformance install uninstall package package-check package-windows package-windows-check test-windows

all: build

# Installs what build, run and test need (apt; quiet when nothing is missing).
deps:
	@scripts/deps.sh

# What `mcptray --version` prints when the binary carries no VCS
# information (GOFLAGS=-buildvcs=false, as on the project's build machines):
# -X only changes the link, not a package's build.
STAMP := -ldflags "-X github.com/mcptray/mcptray/cli.stampedVersion=$$(git describe --tags --dirty 2>/dev/null) \
	-X github.com/mcptray/mcptray/cli.stampedCommit=$$(git rev-parse HEAD 2>/dev/null) \
	-X github.com/mcptray/mcptray/cli.stampedModified=$$(test -z "$$(git status --porcelain 2>/dev/null)" && echo false || echo true)"

build: deps google
	$(GO) build $(STAMP) -o $(BIN) .

build-headless: google
	$(HEADLESS) build -tags headless $(STAMP) -o $(HEADLESS_BIN) .

google:
	$(HEADLESS) build -o $(GOOGLE_BIN) ./cmd/mcptray-google

# Windows, cross-compiled here (docs/windows.md): bin/mcptray.exe, the tray
# app, with cgo — Fyne's GLFW and GL driver are C — through mingw-w64's
# x86_64-w64-mingw32-gcc (apt: gcc-mingw-w64-x86-64; scripts/deps.sh);
# bin/mcptray-google.exe, pure Go. The first cgo build compiles GLFW and
# Fyne for Windows (≈ 7 min on 2 busy cores), then the build cache keeps
# them: keep these flags as they are (no -trimpath, no tags), or it
# starts over. A console program, like bin/mcptray: the CLI prints in
# cmd and PowerShell, and assistants start `mcptray.exe connect` with
# pipes either way.
WINDOWS := env GOOS=windows GOARCH=amd64
WINDOWS_CGO := $(WINDOWS) CGO_ENABLED=1 CC=x86_64-w64-mingw32-gcc
build-windows: deps
	$(WINDOWS_CGO) $(GO) build $(STAMP) -o bin/mcptray.exe .
	$(WINDOWS) CGO_ENABLED=0 $(GO) build -o bin/mcptray-google.exe ./cmd/mcptray-google

# macOS, as far as Linux can build it: the headless mcptray and
# mcptray-google for Apple silicon and Intel, in bin/darwin-ARCH/. Fyne on
# macOS needs cgo and Apple's SDK, so the tray app is built on a Mac
# (package-macos). CI runs this to keep every OS-specific file's darwin
# twin compiling.
MACOS_ARCHES := arm64 amd64
build-macos-headless:
	for arch in $(MACOS_ARCHES); do \
		env GOOS=darwin GOARCH=$$arch CGO_ENABLED=0 $(GO) build -tags headless $(STAMP) -o bin/darwin-$$arch/mcptray .; \
		env GOOS=darwin GOARCH=$$arch CGO_ENABLED=0 $(GO) build -o bin/darwin-$$arch/mcptray-google ./cmd/mcptray-google; \
	done

# The macOS app, on a Mac only (docs/macos.md): dist/mcptray.app from
# fyne package (fyne.io/tools, run as a Go module at a fixed version;
# FyneApp.toml gives the name, ID, icon and version), with mcptray-google
# beside mcptray in Contents/MacOS. Needs Xcode's command line tools.
FYNE_TOOL := fyne.io/tools/cmd/fyne@v1.7.4
package-macos:
	@if [[ $$(uname -s) != Darwin ]]; then \
		echo "make package-macos runs on macOS only: fyne package needs Apple's SDK and tools (docs/macos.md)." >&2; \
		echo "On Linux, make build-macos-headless cross-compiles the headless build." >&2; exit 1; fi
	rm -rf dist/mcptray.app
	mkdir -p dist
	$(GO) run $(FYNE_TOOL) package -os darwin --release --src . --name mcptray --app-id io.github.mcptray --icon assets/icon.png
	mv mcptray.app dist/
	CGO_ENABLED=0 $(GO) build -o dist/mcptray.app/Contents/MacOS/mcptray-google ./cmd/mcptray-google
	@echo "dist/mcptray.app: copy it to /Applications; the Settings tab's switch adds the LaunchAgent."

# Starts the tray app; the default config is created on first run.
run: build
	$(BIN) run

# gofmt, vet, then every test (with -race) inside a private desktop session:
# Xvfb, D-Bus, gnome-keyring and dunst of its own (scripts/desktop-session.sh).
# Each phase says when it starts and how long it took (internal/testfmt):
# vet compiles every package with -race, tests' dependencies too, with a
# progress line every few seconds, so go test only compiles the test
# variants of the module's own packages and links. go test's own vet (a
# subset of go vet's checks) is off: the full go vet just ran on the same
# build. The headless vet (no cgo, no -race: nothing shared with the -race
# build; TestHeadlessBuild reuses it) runs beside the -race one, on the core
# the long single-file cgo compiles leave idle; its lines come after. Then a
# line per package, the output of a failed test as go test prints it, and
# the count: N passed, N failed, N skipped. The tests include Windows'
# under Wine (internal/wine, scripts/wine.sh): mcptray.exe end to end, and
# every package's *_windows_test.go.
test: deps
	@$(GO) build -o $(TESTFMT) ./internal/testfmt
	@$(TESTFMT) run gofmt -- $(MAKE) -s --no-print-directory fmt-check
	@headless=$$(mktemp); trap 'rm -f "$$headless"' EXIT; status=0; \
	$(TESTFMT) compile "vet of the headless build (beside the -race one)" -- $(HEADLESS) vet -tags headless -v . >"$$headless" 2>&1 & \
	$(TESTFMT) compile "vet, compiling every package with -race" -- $(GO) vet $(RACE) -v ./... || status=$$?; \
	wait $$! || status=$$?; cat "$$headless"; exit $$status
	@$(TESTFMT) run "npm peers of the end-to-end tests" -- bash -c 'scripts/npm-peers.sh >/dev/null'
	@MCPTRAY_NPM_PEERS=$$(scripts/npm-peers.sh) $(TESTFMT) test -- $(SESSION) $(GO) test $(TESTFLAGS) -vet=off -json ./...

fmt-check:
	@files=$$(find . \( -path './.*' -o -name node_modules -o -name testdata \) -prune -o -name '*.go' -print0 | xargs -0 gofmt -l); \
	if [[ -n $$files ]]; then echo "gofmt needed on:"; echo "$$files"; exit 1; fi

vet:
	$(GO) vet $(RACE) ./...
	$(HEADLESS) vet -tags headless .

# gofmt, both vets, staticcheck (run as a Go module at a fixed version: the
# module proxy fetches it on a fresh machine), and the repo's own checks
# (internal/repocheck: docs name only real identifiers, no binary or big
# file committed). CI runs it after make test, from a warm build cache.
lint: deps fmt-check vet
	$(GO) run $(STATICCHECK) ./...
	$(GO) test -count=1 ./internal/repocheck

# Benchmarks only (no tests), in the same kind of session as the tests (the
# gateway's HTTP benchmarks need its keyring). The end-to-end gateway
# benchmarks (cli/bench_gateway_test.go: direct calls against mcptray) do a
# fixed amount of work (the latency ones in five rounds of their own), so
# they run once, last, and their lines against the issue's targets are
# repeated at the end.
# The tool search's figures (recall against plain BM25, a search's time:
# mcp/toolsearch's BenchmarkToolSearchFigures logs them as "toolsearch: "
# lines; the live and dynamic lists' sizes: the gateway's "dynamic list: "
# line) are repeated at the end under "Tool search:".
GATEWAY_BENCH := ^BenchmarkGateway(Stdio|Stdio2026|StdioBusyCPU|HTTP|Throughput|RSS)$$
bench: deps
	@out=$$(mktemp); trap 'rm -f "$$out"' EXIT; \
	echo "$(SESSION) $(GO) test -run '^$$' -bench . -skip '$(GATEWAY_BENCH)' -benchmem -benchtime $(BENCHTIME) ./..."; \
	MCPTRAY_NPM_PEERS=$$(scripts/npm-peers.sh) $(SESSION) $(GO) test -run '^$$' -bench . -skip '$(GATEWAY_BENCH)' -benchmem -benchtime $(BENCHTIME) ./... | tee "$$out"; \
	echo "$(SESSION) $(GO) test -run '^$$' -bench '$(GATEWAY_BENCH)' -benchtime 1x ./cli"; \
	$(SESSION) $(GO) test -run '^$$' -bench '$(GATEWAY_BENCH)' -benchtime 1x ./cli | tee -a "$$out"; \
	echo "$(SESSION) $(HEADLESS) test -tags headless -run '^$$' -bench '^BenchmarkGatewayRSS$$' -benchtime 1x ./cli"; \
	$(SESSION) $(HEADLESS) test -tags headless -run '^$$' -bench '^BenchmarkGatewayRSS$$' -benchtime 1x ./cli | tee -a "$$out"; \
	echo; echo "mcptray gateway against direct calls:"; \
	sed -n 's/^ *bench_gateway_test\.go:[0-9]*: gateway: /  /p; s/^\(BenchmarkGateway[^:]*\): gateway: /  \1: /p' "$$out"; \
	echo; echo "Tool search:"; \
	sed -n 's/^ *[A-Za-z0-9_]*\.go:[0-9]*: toolsearch: /  /p; s/^ *[A-Za-z0-9_]*\.go:[0-9]*: \(dynamic list: \)/  \1/p' "$$out"

# The gateway's fast path against a strict decode of the same bytes
# (mcp/route_fuzz_test.go), for FUZZTIME; CI runs it for 10s.
FUZZTIME ?= 1m
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzRouteAgreesWithDecoder$$' -fuzztime $(FUZZTIME) ./mcp

clean:
	rm -rf bin dist

# Installs the tray app and mcptray-google side by side into PREFIX/bin
# (default ~/.local, or /usr/local as root), with a desktop entry in
# PREFIX/share/applications and the icon in the hicolor theme
# (packaging/install.sh; DESTDIR= stages them under another root).
# uninstall removes exactly those files.
PREFIX ?= $(if $(filter 0,$(shell id -u)),/usr/local,$(HOME)/.local)
INSTALL_SH := MCPTRAY_BIN=$(BIN) MCPTRAY_GOOGLE_BIN=$(GOOGLE_BIN) MCPTRAY_ICON=assets/icon.png \
	packaging/install.sh
install: build
	$(INSTALL_SH) install --prefix "$(PREFIX)" --destdir "$(DESTDIR)"

uninstall:
	$(INSTALL_SH) uninstall --prefix "$(PREFIX)" --destdir "$(DESTDIR)"

# The .deb and the .tar.gz for Linux into dist/ (packaging/package.sh; nfpm
# runs as a Go module, built once). Windows': make package-windows, below;
# macOS's are made on a Mac (make package-macos).
package: build
	packaging/package.sh

# The Windows tests under Wine (internal/wine, scripts/wine.sh) that need
# cgo, which make test skips: their first build compiles Fyne for Windows
# (≈ 7 min cold). The end-to-end test on make build-windows's mcptray.exe,
# the tray app's build (make test runs it on a headless mcptray.exe built
# without cgo); the Windows tests of the packages that need cgo (ui); and
# the tray app itself under Wine in the desktop session
# (ui's TestTrayAppUnderWine).
test-windows: build-windows
	MCPTRAY_WINDOWS_BIN=$(CURDIR)/bin MCPTRAY_WINDOWS_CGO=1 $(GO) test -count=1 -v \
		-run '^TestWindows(EndToEnd|PackageTests)$$' ./internal/wine
	MCPTRAY_WINDOWS_BIN=$(CURDIR)/bin $(SESSION) $(GO) test -count=1 -v -run '^TestTrayAppUnderWine$$' ./ui

# The Windows packages into dist/, from make build-windows's two .exe
# (packaging/package-windows.sh): a .zip to unpack anywhere, and a per-user
# MSI built by wixl (packaging/windows/mcptray.wxs). Made here, on Linux.
package-windows: build-windows
	packaging/package-windows.sh

# Their check: the zip's files, the MSI's tables (msiinfo), and the MSI
# installed, run and removed under Wine (scripts/package-windows-check.sh).
package-windows-check: package-windows
	scripts/package-windows-check.sh

# CI's check of the .deb on this system (as root): install it, run
# /usr/bin/mcptray, remove it (scripts/package-check.sh).
package-check: package
	scripts/package-check.sh

# The official MCP conformance suite (docs/conformance.md): the server suite
# against mcptray's /mcp/everything in front of the go-sdk's everything-server,
# and the client scenarios with mcptray as the client (0.1.16); then the
# requirement sets 2025-11-25 and 2026-07-28 of 0.2.0-alpha.12, direct and
# through mcptray, the auth/* client scenarios included (a fresh daemon signs
# in through its inbox), held to conformance/known-gaps.txt (≈ 2 min 40 s warm
# in all, ≈ 3 min 30 s once the OAuth client signs in; 2 shared cores).
# node 22 and the suites are installed into .cache when missing (≈ 16 s
# cold, then < 1 s). In the desktop session: the HTTP token lives in the
# keyring.
conformance: deps build
	MCPTRAY_BIN=$(CURDIR)/$(BIN) $(SESSION) scripts/conformance.sh mcptray
