// Where the JS tests find their vectors: all are in tests/vectors, each folder with a
// README naming its source and licence.
import { readFileSync } from "node:fs";
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
