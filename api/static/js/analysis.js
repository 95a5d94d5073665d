// The analysis page while its build runs: the page is asked for again every Retry-After
// seconds, and its progress bar and its words ("3 of 20 hands") move in place; once the
// analysis is there it takes the progress's place, without a reload. The words are a
// live region: a screen reader hears the count, then that the analysis is ready.

import { fetchRetry } from "./retry.js";

const $ = (id) => document.getElementById(id);
const pause = (ms) => new Promise((done) => setTimeout(done, ms));

/** Follow the build until the page is the analysis. `fetch` and `sleep` are for tests. */
export async function followAnalysis({ url = location.pathname, fetch, sleep = pause } = {}) {
  let box = $("analysis-building");
  let wait = Number(box?.dataset.retryAfter) || 2;
  while (box) {
    await sleep(wait * 1000);
    let resp;
    try {
      resp = await fetchRetry(url, { headers: { Accept: "text/html" }, cache: "no-store" }, { fetch });
    } catch {
      continue; // the service out of reach for a minute and more: ask again
    }
    const page = new DOMParser().parseFromString(await resp.text(), "text/html");
    if (resp.status === 202) {
      const bar = page.getElementById("analysis-progress");
      const now = $("analysis-progress");
      for (const name of ["max", "value"]) {
        if (bar?.hasAttribute(name)) now.setAttribute(name, bar.getAttribute(name));
      }
      const said = page.getElementById("analysis-status")?.textContent ?? "";
      if ($("analysis-status").textContent !== said) $("analysis-status").textContent = said;
      $("analysis-started").textContent = page.getElementById("analysis-started")?.textContent ?? "";
      wait = Number(resp.headers.get("Retry-After")) || wait;
    } else if (resp.ok && page.getElementById("analysis")) {
      $("analysis").replaceWith(document.adoptNode(page.getElementById("analysis")));
      box.remove();
      box = null;
      $("analysis-status").textContent = "The analysis is ready.";
    } else {
      // the service's words when it has some (a failed build says why, and when it is
      // tried again)
      const said = page.getElementById("error-message")?.textContent;
      $("analysis-status").textContent = said
        ? `${said.charAt(0).toUpperCase()}${said.slice(1)} (HTTP ${resp.status})`
        : `The analysis could not be loaded (HTTP ${resp.status}); reload the page to try again.`;
      box.remove();
      return;
    }
  }
}
