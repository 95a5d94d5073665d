// The JavaScript shuffle against every golden vector of tests/vectors/shuffle, like the
// Python one (tests/shuffle): every intermediate value, and every must-fail transcript
// failing with its code and field.
import assert from "node:assert/strict";
import { test } from "node:test";

import { fromHex, toHex } from "../../api/static/js/bytes.js";
import * as sh from "../../api/static/js/shuffle.js";
import { shuffleVectors } from "./paths.mjs";

const data = shuffleVectors();
const text = (cards) => sh.cardsText(cards);

test("the sampler limits are the vectors'", () => {
  for (const [n, limit] of Object.entries(data.sampler_limits)) {
    assert.equal(sh.acceptLimit(Number(n)), limit, `n=${n}`);
  }
});

for (const v of data.vectors) {
  test(`vector ${v.name}: every intermediate value`, async () => {
    const inp = v.inputs;
    const t = sh.parseTranscript(v.transcript);
    const serverSeed = fromHex(inp.server_seed);
    const frame = sh.frame(sh.LABELS.serverCommit, new TextEncoder().encode(inp.table), sh.u64(inp.hand), serverSeed);
    assert.equal(toHex(frame), v.server_commitment_input);
    assert.equal(toHex(await sh.serverCommitment(serverSeed, inp.table, inp.hand)), v.server_commitment);
    for (const s of sh.SEATS) {
      const e = inp.seats[s];
      const c = await sh.seatCommitment(fromHex(e.seed), s, e.player, inp.table, inp.hand);
      assert.equal(toHex(c), v.seat_commitments[s], s);
    }
    assert.equal(toHex(sh.keyInput(t)), v.key_input);
    const d = await sh.verifyTranscript(v.transcript);
    assert.equal(toHex(d.key), v.key);
    for (const name of ["dealing", "still"]) {
      const want = v.streams[name];
      const got = d.streams[name];
      assert.deepEqual(got.draws, want.draws, name);
      assert.equal(got.blocks, want.blocks_used, name);
      for (const [i, block] of want.first_blocks.entries()) {
        assert.equal(toHex(await sh.streamBlock(d.key, want.label, i)), block);
      }
    }
    assert.deepEqual(text(d.packOrder), v.pack_order);
    for (const s of sh.SEATS) assert.deepEqual(text(d.deal[s]), v.deal[s], s);
    assert.equal(sh.CARD_TEXT[d.cayenne], v.cayenne);
    assert.equal(d.dealNumber.toString(), v.deal_number);
  });
}

test("the deal numbers 0, 1, D/2 and D-1", () => {
  assert.equal(data.deal_numbers.length, 4);
  for (const dn of data.deal_numbers) {
    const deal = {};
    for (const s of sh.SEATS) deal[s] = dn.deal[s].map(sh.cardOf);
    assert.equal(sh.dealNumber(deal).toString(), dn.number);
  }
  assert.equal(sh.DEAL_COUNT, 53644737765488792839237440000n);
});

test("every must-fail transcript fails with its code and field", async () => {
  assert.equal(data.must_fail.length, 19);
  for (const m of data.must_fail) {
    await assert.rejects(
      () => sh.verifyTranscript(m.transcript),
      (err) => {
        assert.ok(err instanceof sh.ShuffleError, `${m.name}: ${err}`);
        assert.equal(err.code, m.code, m.name);
        assert.equal(err.path, m.path, m.name);
        return true;
      },
    );
  }
});
