// The browser's witness checks on what a browser fetched from two views of one log, for
// tests/api/test_witness_e2e.py:
//   node tests/js/witness_split.mjs VIEWS.json
// VIEWS.json: {log_key, witnesses: [vkey...], quorum, first, second, proof: [base64...]}
// (first and second: the checkpoint notes each view served; proof: the second view's
// consistency proof between their sizes). Prints {first_policy, second_policy,
// consistency}: "ok" or "CODE message" each.
import { readFileSync } from "node:fs";

import { makePolicy, verifyWitnessedCheckpoint } from "../../api/static/js/cosignature.js";
import { checkConsistency } from "../../api/static/js/events.js";

const views = JSON.parse(readFileSync(process.argv[2], "utf8"));
const policy = await makePolicy(views.witnesses, views.quorum);
const outcome = async (f) => {
  try {
    await f();
    return "ok";
  } catch (err) {
    return `${err.code ?? "ERROR"} ${err.message}`;
  }
};
const result = {
  first_policy: await outcome(() => verifyWitnessedCheckpoint(views.first, views.log_key, policy)),
  second_policy: await outcome(() => verifyWitnessedCheckpoint(views.second, views.log_key, policy)),
  consistency: await outcome(() => checkConsistency(views.first, views.second, views.proof, views.log_key)),
};
process.stdout.write(JSON.stringify(result) + "\n");
