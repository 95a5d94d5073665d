// Where the JS tests find their vectors: all are in tests/vectors, each folder with a
// README naming its source and licence.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const JS = join(ROOT, "api", "static", "js");

export function readJson(path) {
  return JSON.parse(readFileSync(path, "utf8"));
}

export const shuffleVectors = () => readJson(join(ROOT, "tests", "vectors", "shuffle", "shuffle_vectors.json"));

/** The transparency-log vectors copied into tests/vectors (see their READMEs). */
export const TLOG = join(ROOT, "tests", "vectors", "tlog");
export const MERKLE_PROBES = join(ROOT, "tests", "vectors", "transparency-dev-merkle");

/** The BLS bundle (api/static/vendor/bls.js, built by `make`: npm ci, then esbuild). */
export const BLS_BUNDLE = join(ROOT, "api", "static", "vendor", "bls.js");

/** false when the bundle is built, else why a test that needs it is skipped. Under
 * FAIRPLAY_TEST_NODE=required (CI) a missing bundle is never skipped: those tests run
 * and fail, and so does "the BLS bundle is built" (drand.test.mjs). */
export function blsSkip() {
  if (existsSync(BLS_BUNDLE) || process.env.FAIRPLAY_TEST_NODE === "required") return false;
  return "the BLS bundle is not built (`make` builds it with npm)";
}
