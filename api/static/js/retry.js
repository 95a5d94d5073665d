// Requests that ride out an outage: while the service answers 503 (its database is down
// or restarting) or cannot be reached at all, the request is sent again after the
// Retry-After the service names, or with doubling backoff, for about a minute and a half.
// A signed action sent again is answered as the first time (the log holds each event once).
// A 503 whose Retry-After is longer than that (a failed build's wait, BUILD_FAILED) is the
// caller's at once: the service has said it will not be ready within it.

export const RETRY = { tries: 14, base: 500, max: 8000, patience: 90 };

const pause = (ms) => new Promise((done) => setTimeout(done, ms));

// fetch(url, init) asked again on 503 and on network errors. `init` may be a function
// returning the init (or a promise of it), called for every try: a signed read's header
// is made anew each time. The last answer (or network error) is the caller's.
export async function fetchRetry(url, init = {}, options = {}) {
  const { tries, base, max, patience } = { ...RETRY, ...options };
  const send = options.fetch ?? globalThis.fetch;
  const sleep = options.sleep ?? pause;
  let delay = base;
  for (let attempt = 1; ; attempt++) {
    const last = attempt >= tries;
    let wait = delay;
    try {
      const resp = await send(url, typeof init === "function" ? await init() : init);
      if (resp.status !== 503 || last) return resp;
      const after = Number(resp.headers.get("Retry-After"));
      if (after > patience) return resp;
      if (Number.isFinite(after) && after > 0) wait = Math.min(Math.max(after * 1000, delay), max);
    } catch (err) {
      if (last || !(err instanceof TypeError)) throw err; // TypeError: the network failed
    }
    await sleep(wait);
    delay = Math.min(delay * 2, max);
  }
}
