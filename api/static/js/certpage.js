// The certificate page's "Verify in this browser": fetch the event's certificate bundle,
// run verifyCertificate (certificate.js) with its progress shown, list the checks as a
// hand's page does, and offer the very bytes checked for download beside the command that
// checks them offline. The log key is the one this browser pinned (logview.js), else the
// one the certificate names (then said so).

import { verifyCertificateDetailed } from "./certificate.js";
import { LOG_KEY } from "./logview.js";

const $ = (id) => document.getElementById(id);

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  for (const c of children) node.append(c);
  return node;
}

const MARK = { true: "\u2713", false: "\u2717", null: "\u2013" };
const STATE = { true: "passed", false: "FAILED", null: "not checked in the browser" };

/** The list of checks: a row each, its state in words as well as in a mark. */
export function showCertificateChecks(out, result) {
  const rows = result.checks.map((c) =>
    el(
      "tr",
      { class: c.ok === true ? "ok" : c.ok === false ? "bad" : "skip", "data-check": c.check },
      el("td", { "aria-hidden": "true" }, MARK[c.ok]),
      el("td", {}, c.check),
      el("td", {}, el("span", { class: "sr-only" }, `${STATE[c.ok]}: `), c.detail ?? ""),
    ),
  );
  const left = result.checks.filter((c) => c.ok === null).length;
  out.replaceChildren(
    el(
      "p",
      { id: "verify-result", class: result.ok ? "verified" : "failed" },
      result.ok
        ? `Certificate verified in this browser: every check it ran passed${left ? ` (${left} left to the command above)` : ""}.`
        : `The certificate FAILED verification (${result.summary}): do not trust this service's account of the event.`,
    ),
    el("table", { class: "checks" }, el("tr", {}, el("th", {}, el("span", { class: "sr-only" }, "result")), el("th", {}, "check"), el("th", {}, "detail")), ...rows),
  );
}

export async function startCertificatePage({ tid, certifiedKey }) {
  const button = $("verify-start");
  const status = $("verify-status");
  const bar = $("verify-progress");
  const out = $("verify-out");
  const pinned = localStorage.getItem(LOG_KEY);
  const key = pinned ?? certifiedKey;
  $("verify-key").textContent = pinned
    ? pinned === certifiedKey
      ? "The log key this browser pinned, which the certificate names."
      : "The log key this browser pinned, which is NOT the one the certificate names: the checks will say so."
    : "The log key the certificate names (this browser has pinned none: compare it with one you got elsewhere).";
  button.addEventListener("click", async () => {
    button.disabled = true;
    out.replaceChildren();
    bar.hidden = false;
    bar.value = 0;
    status.textContent = "Fetching the certificate bundle…";
    try {
      const resp = await fetch(`/v1/tournaments/${encodeURIComponent(tid)}/certificate/bundle`);
      const text = await resp.text();
      if (!resp.ok) throw new Error(`the service answered ${resp.status}: ${text.slice(0, 200)}`);
      const link = $("verify-download");
      link.href = URL.createObjectURL(new Blob([text], { type: "application/json" }));
      link.hidden = false;
      const bundle = JSON.parse(text);
      const result = await verifyCertificateDetailed(bundle, key, {
        onProgress: (check, done, total, part = 0) => {
          bar.max = total;
          bar.value = done + part;
          status.textContent = `Checking ${check} (${done + 1} of ${total})…`;
        },
      });
      bar.value = bar.max;
      status.textContent = result.ok ? "Done: every check the browser runs passed." : `Done: ${result.summary}.`;
      showCertificateChecks(out, result);
      window.cayenneCertificate = result;
    } catch (err) {
      status.textContent = `Could not verify: ${err.message}`;
    } finally {
      button.disabled = false;
    }
  });
}
