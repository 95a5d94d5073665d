// Where the JS tests find their vectors. The shuffle vectors are the project's own; the
// transparency-log vectors (RFC 6962 / transparency-dev, sum.golang.org notes) are read
// from tests/vectors when a copy is there, else from the shared folder beside the clone
// (the Python tests' `shared_dir`); FAIRPLAY_TLOG_VECTORS names another folder.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const JS = join(ROOT, "api", "static", "js");

export function readJson(path) {
  return JSON.parse(readFileSync(path, "utf8"));
}

export const shuffleVectors = () => readJson(join(ROOT, "tests", "vectors", "shuffle", "shuffle_vectors.json"));

/** The folder holding tlog_vectors.json and transparency-dev-merkle/, or null. */
export function tlogDir() {
  const candidates = [
    process.env.FAIRPLAY_TLOG_VECTORS,
    join(ROOT, "tests", "vectors", "log"),
    join(ROOT, "tests", "vectors"),
    join(ROOT, "..", "shared", "vectors"),
    "/work/shared/vectors",
  ].filter(Boolean);
  return candidates.find((d) => existsSync(join(d, "tlog_vectors.json"))) ?? null;
}
