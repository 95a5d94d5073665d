// The pages' requests ride out an outage (api/static/js/retry.js): against a real HTTP
// server on the loopback that answers 503 with Retry-After, then 200; and one that is
// not listening yet, then is.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { test } from "node:test";

import { fetchRetry } from "../../api/static/js/retry.js";

function serve(answers) {
  const seen = [];
  const server = createServer((req, res) => {
    seen.push(req.headers["x-try"]);
    const status = answers.shift() ?? 200;
    const headers = { "Content-Type": "application/json" };
    if (status === 503) headers["Retry-After"] = "1";
    res.writeHead(status, headers);
    res.end(JSON.stringify({ code: status === 503 ? "DATABASE_UNAVAILABLE" : "OK" }));
  });
  return new Promise((done) => server.listen(0, "127.0.0.1", () => done({ server, seen })));
}

test("503 is asked again after Retry-After, the init made anew each try", async () => {
  const { server, seen } = await serve([503, 503]);
  const url = `http://127.0.0.1:${server.address().port}/v1/x`;
  const waits = [];
  let n = 0;
  const resp = await fetchRetry(url, () => ({ headers: { "x-try": String(++n) } }), {
    sleep: async (ms) => waits.push(ms),
  });
  server.close();
  assert.equal(resp.status, 200);
  assert.deepEqual(seen, ["1", "2", "3"]);
  assert.deepEqual(waits, [1000, 1000]);
});

test("the last 503 is the caller's after the tries run out", async () => {
  const { server } = await serve([503, 503, 503]);
  const url = `http://127.0.0.1:${server.address().port}/`;
  const resp = await fetchRetry(url, {}, { tries: 2, sleep: async () => {} });
  server.close();
  assert.equal(resp.status, 503);
});

test("a refused connection is tried again with doubling backoff until the server is up", async () => {
  const probe = createServer();
  await new Promise((done) => probe.listen(0, "127.0.0.1", done));
  const port = probe.address().port;
  await new Promise((done) => probe.close(done));
  const waits = [];
  let server;
  const resp = await fetchRetry(`http://127.0.0.1:${port}/`, {}, {
    base: 10,
    sleep: async (ms) => {
      waits.push(ms);
      if (waits.length === 3) {
        server = createServer((req, res) => res.end("{}"));
        await new Promise((done) => server.listen(port, "127.0.0.1", done));
      }
    },
  });
  server.close();
  assert.equal(resp.status, 200);
  assert.deepEqual(waits, [10, 20, 40]);
});

test("a 503 that asks for more than the patience (a failed build's wait) is the caller's at once", async () => {
  const server = createServer((req, res) => {
    res.writeHead(503, { "Content-Type": "application/json", "Retry-After": "300" });
    res.end(JSON.stringify({ code: "BUILD_FAILED" }));
  });
  await new Promise((done) => server.listen(0, "127.0.0.1", done));
  const waits = [];
  const resp = await fetchRetry(`http://127.0.0.1:${server.address().port}/`, {}, {
    sleep: async (ms) => waits.push(ms),
  });
  server.close();
  assert.equal(resp.status, 503);
  assert.equal((await resp.json()).code, "BUILD_FAILED");
  assert.deepEqual(waits, []); // not asked again
});
