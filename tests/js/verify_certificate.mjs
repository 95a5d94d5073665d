// Run the browser's verifyCertificate on files, for the pytest tests and the bench:
//   node tests/js/verify_certificate.mjs LOGKEY.txt BUNDLE.json [BUNDLE.json ...]
// Prints one JSON line per bundle: verifyCertificateDetailed's result and the time it
// took (ms); exit 0 when every bundle passed every check it ran, 1 otherwise.
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";

import { verifyCertificateDetailed } from "../../api/static/js/certificate.js";

const [keyFile, ...bundles] = process.argv.slice(2);
const key = readFileSync(keyFile, "utf8").trim();
let ok = true;
for (const path of bundles) {
  const bundle = JSON.parse(readFileSync(path, "utf8"));
  const t0 = performance.now();
  const result = await verifyCertificateDetailed(bundle, key);
  const ms = performance.now() - t0;
  ok &&= result.ok;
  process.stdout.write(JSON.stringify({ path, ms, ...result }) + "\n");
}
process.exitCode = ok ? 0 : 1;
