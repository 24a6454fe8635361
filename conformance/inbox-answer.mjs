// The person at the desktop, for scripts/conformance.sh: answers every
// request that server SERVER puts in mcptray's inbox while the suite runs
// (docs/conformance.md). Run with node 22:
//
//   node conformance/inbox-answer.mjs MCPTRAY DATA SERVER
//
// It runs `MCPTRAY inbox watch --json --data DATA` and answers each added
// request of SERVER with `MCPTRAY inbox answer ID --data DATA`: an approval
// or a confirmation (a sign-in's "Sign in to NAME at HOST" among them) with
// --yes; a form with every required field that has no default (a
// string "conformance", or its first option; a number its minimum or 1; a
// boolean true), the other fields taking their defaults. A secret field's
// value (a throwaway) goes through stdin (--field NAME=-), never argv. It
// prints one line per answer, "answered ID (KIND, N fields)", never a
// value, and stops on SIGTERM or when the watch ends.
import { spawn, spawnSync } from "node:child_process";
import { createInterface } from "node:readline";

const [bin, data, server] = process.argv.slice(2);
if (!bin || !data || !server) {
	console.error("usage: node inbox-answer.mjs MCPTRAY DATA SERVER");
	process.exit(2);
}

const watch = spawn(bin, ["inbox", "watch", "--json", "--data", data], { stdio: ["ignore", "pipe", "inherit"] });
process.on("SIGTERM", () => watch.kill());
process.on("SIGINT", () => watch.kill());

// value picks a value a form accepts for field f, as a string.
function value(f) {
	if (f.options?.length) return f.options[0].value;
	switch (f.type) {
		case "number":
		case "integer":
			return String(f.minimum ?? 1);
		case "boolean":
			return "true";
		default:
			return f.secret ? "conformance-throwaway" : "conformance";
	}
}

function answer(req) {
	const args = ["inbox", "answer", req.id, "--data", data];
	const secrets = [];
	let fields = 0;
	if (req.kind === "approval" || req.confirm) {
		args.push("--yes");
	} else {
		for (const f of req.fields ?? []) {
			if (!f.required || f.hasDefault) continue;
			fields++;
			if (f.secret) {
				args.push("--field", `${f.name}=-`);
				secrets.push(value(f));
			} else {
				args.push("--field", `${f.name}=${value(f)}`);
			}
		}
		if (fields === 0) args.push("--yes");
	}
	const r = spawnSync(bin, args, { input: secrets.map((s) => s + "\n").join(""), encoding: "utf8" });
	if (r.status === 0) {
		console.log(`answered ${req.id} (${req.kind}, ${fields} fields)`);
	} else {
		console.log(`could not answer ${req.id} (${req.kind}): exit ${r.status}: ${(r.stderr || "").trim()}`);
	}
}

for await (const line of createInterface({ input: watch.stdout })) {
	let ev;
	try {
		ev = JSON.parse(line);
	} catch {
		continue;
	}
	if (ev.kind === "added" && ev.request?.server === server) answer(ev.request);
}
