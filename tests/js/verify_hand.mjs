// Run the browser's verifyHand on files, for the pytest end-to-end tests:
//   node tests/js/verify_hand.mjs BUNDLE.json LOGKEY.txt [--last NOTE|PROOF.json] [--record RECORD.json]
//     [--player ID --player-key KEY.txt]
// --last takes a checkpoint note file, or a JSON file {checkpoint, consistency}.
// Prints verifyHandDetailed's result as JSON; exit 0 when every check passed, 1 otherwise.
import { readFileSync } from "node:fs";

import { verifyHandDetailed } from "../../api/static/js/hand.js";

const args = process.argv.slice(2);
const opt = (name) => {
  const i = args.indexOf(name);
  return i < 0 ? null : args[i + 1];
};
const bundle = JSON.parse(readFileSync(args[0], "utf8"));
const key = readFileSync(args[1], "utf8").trim();
let last = null;
if (opt("--last")) {
  const text = readFileSync(opt("--last"), "utf8");
  last = text.trimStart().startsWith("{") ? JSON.parse(text) : text;
}
const options = {};
if (opt("--record")) options.record = JSON.parse(readFileSync(opt("--record"), "utf8"));
if (opt("--player")) options.player = opt("--player");
if (opt("--player-key")) options.playerKey = readFileSync(opt("--player-key"), "utf8").trim();
const result = await verifyHandDetailed(bundle, key, last, options);
process.stdout.write(JSON.stringify(result, null, 1) + "\n");
process.exitCode = result.ok ? 0 : 1;
