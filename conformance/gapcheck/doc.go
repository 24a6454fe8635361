// Command gapcheck is the gate of scripts/conformance.sh's requirement-set
// runs (docs/conformance.md): it compares, scenario by scenario, what the
// MCP conformance suite saw against the go-sdk's reference programs direct
// with what it saw through mcptray, and holds the difference to a committed
// list of known gaps.
//
//	gapcheck -gaps conformance/known-gaps.txt RESULTS
//
// RESULTS holds one folder per run, named LEG-REVISION (server-2026-07-28,
// client-2025-11-25), each with direct.txt and mcptray.txt: one scenario a
// line, "pass NAME" or "fail NAME", as scripts/conformance.sh writes them
// from the suite's output. The known-gaps file lists, one a line,
// "LEG REVISION SCENARIO REASON…": the scenarios that pass direct but fail
// through mcptray today ('#' starts a comment).
//
// It prints a table of the counts (passed/run per leg and revision, direct
// and through mcptray) and exits 1 when a scenario passes direct, fails
// through mcptray and is not listed; when a listed scenario passes through
// mcptray (or fails direct too, or was not run): the list only shrinks. Bad
// input (a malformed line, a missing file) is exit 2 with the file and line.
//
// It uses the standard library only, and reads only the files it is given.
package main
