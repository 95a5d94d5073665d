// The browser's pinned witness policy and its check of a service's checkpoint
// (api/static/js/logview.js), on the real checkpoint cosigned by four public witnesses
// (tests/vectors/cosignature). The split view itself: tests/api/test_split_browser.py.
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";

import * as lv from "../../api/static/js/logview.js";
import { ROOT, readJson } from "./paths.mjs";

const vectors = () => readJson(join(ROOT, "tests", "vectors", "cosignature", "cosignature_vectors.json"));

class Storage {
  constructor() {
    this.items = new Map();
  }
  getItem(k) {
    return this.items.has(k) ? this.items.get(k) : null;
  }
  setItem(k, v) {
    this.items.set(k, String(v));
  }
}

const noProof = async () => null;

test("first use pins every witness the service names, n of n; later lists never replace it", async () => {
  const v = vectors().real_world_cosigned_checkpoint;
  const keys = v.witnesses.map((w) => w.vkey);
  const storage = new Storage();
  const first = await lv.pinOnFirstUse(storage, keys);
  assert.equal(first.first, true);
  assert.deepEqual(lv.pinnedPolicy(storage), { witnesses: keys, quorum: 4 });
  const again = await lv.pinOnFirstUse(storage, [...keys].reverse());
  assert.equal(again.differs, false);
  const other = await lv.pinOnFirstUse(storage, v.witnesses_not_on_this_checkpoint);
  assert.equal(other.differs, true);
  assert.deepEqual(lv.pinnedPolicy(storage), { witnesses: keys, quorum: 4 });
});

test("an edited policy is validated before it is pinned", async () => {
  const v = vectors().real_world_cosigned_checkpoint;
  const keys = v.witnesses.map((w) => w.vkey);
  const storage = new Storage();
  await lv.savePolicy(storage, keys, 2);
  await assert.rejects(lv.savePolicy(storage, keys, 5), (err) => err.code === "LOG_KEY_INVALID");
  await assert.rejects(lv.savePolicy(storage, [keys[0], "not a key"], 1), (err) => err.code === "LOG_KEY_INVALID");
  await assert.rejects(lv.savePolicy(storage, [keys[0], keys[0]], 1), /twice/);
  assert.deepEqual(lv.pinnedPolicy(storage), { witnesses: keys, quorum: 2 });
});

test("the checkpoint is checked against the pinned key, policy and last checkpoint", async () => {
  const v = vectors().real_world_cosigned_checkpoint;
  const keys = v.witnesses.map((w) => w.vkey);
  const ok = await lv.checkLogView(v.note, v.log_vkey, { witnesses: keys, quorum: 4 }, null, noProof);
  assert.equal(ok.ok, true, JSON.stringify(ok.checks));
  assert.deepEqual(ok.checks.map((c) => c.check), ["log checkpoint", "witnesses", "same log as before"]);
  assert.match(ok.checks[1].detail, /cosigned by 4 of 4 .*the policy needs 4/);
  assert.equal(ok.checkpoint, v.note);
  const same = await lv.checkLogView(v.note, v.log_vkey, { witnesses: keys, quorum: 4 }, v.note, noProof);
  assert.equal(same.ok, true);
  assert.equal(same.fork, null);

  const mixed = [...keys.slice(0, 2), ...v.witnesses_not_on_this_checkpoint];
  const short = await lv.checkLogView(v.note, v.log_vkey, { witnesses: mixed, quorum: 3 }, null, noProof);
  assert.equal(short.ok, false);
  assert.equal(short.checkpoint, null); // nothing kept after a failure
  assert.match(short.checks[1].detail, /^LOG_WITNESS_QUORUM: cosigned by 2 of 4 witnesses, the policy needs 3; missing: /);
  assert.deepEqual(short.witnesses.map((w) => w.cosigned), [true, true, false, false]);

  const unpinned = await lv.checkLogView(v.note, v.log_vkey, null, null, noProof);
  assert.equal(unpinned.ok, false);
  assert.match(unpinned.checks[1].detail, /no witness policy is pinned/);

  const wrongKey = await lv.checkLogView(v.note, v.witnesses[0].vkey, { witnesses: keys, quorum: 4 }, null, noProof);
  assert.equal(wrongKey.ok, false);
  assert.equal(wrongKey.checks[0].ok, false);
});
