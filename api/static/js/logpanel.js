// The "log and witnesses" panel of the player's table page: pins the log key and the
// witness policy on first use, checks the service's current checkpoint against them and
// the last checkpoint this browser kept (logview.js), shows the witnesses and the quorum
// among the checks, lets the person see and edit the pinned policy, and shows a split
// view plainly with the two checkpoints.

import { fetchRetry } from "./retry.js";
import { CHECKPOINT_KEY, LOG_KEY, checkLogView, pinOnFirstUse, pinnedPolicy, savePolicy } from "./logview.js";

const $ = (id) => document.getElementById(id);

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v !== false && v !== null && v !== undefined) node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) node.append(c);
  return node;
}

async function consistency(a, b) {
  const resp = await fetchRetry(`/v1/log/proofs/consistency?from=${a}&to=${b}`);
  if (!resp.ok) return null;
  return (await resp.json()).proof;
}

/** Pin what needs pinning; returns {logKey, policy, warnings} for the page to use. */
export async function pinAll(servedLogKey) {
  const warnings = [];
  const pinnedKey = localStorage.getItem(LOG_KEY);
  if (!pinnedKey) localStorage.setItem(LOG_KEY, servedLogKey);
  else if (pinnedKey !== servedLogKey) warnings.push("this service's log key is not the one this browser pinned: verification uses the pinned key");
  let published = [];
  try {
    published = (await (await fetchRetry("/v1/log/witnesses")).json()).witnesses ?? [];
  } catch {
    published = [];
  }
  let pinned;
  try {
    pinned = await pinOnFirstUse(localStorage, published);
  } catch (err) {
    warnings.push(`the witnesses this service names are not valid keys (${err.message}): none pinned`);
    pinned = { policy: pinnedPolicy(localStorage), differs: false };
  }
  if (pinned.differs) warnings.push("this service now names other witnesses than the policy pinned in this browser: the pinned policy is enforced (edit it below if you trust the change)");
  return { logKey: pinnedKey ?? servedLogKey, policy: pinned.policy, warnings };
}

/** Check the log now and draw the panel into #log-view. Returns the check's result. */
export async function showLogView(logKey, warnings = []) {
  const box = $("log-view");
  const policy = pinnedPolicy(localStorage);
  const note = await (await fetchRetry("/v1/log/checkpoint")).text();
  const last = localStorage.getItem(CHECKPOINT_KEY);
  const result = await checkLogView(note, logKey, policy, last, consistency);
  if (result.ok && result.checkpoint) localStorage.setItem(CHECKPOINT_KEY, result.checkpoint);
  const rows = result.checks.map((c) =>
    el("tr", { class: c.ok ? "ok" : "bad", "data-check": c.check }, el("td", {}, c.ok ? "\u2713" : "\u2717"), el("td", {}, c.check), el("td", {}, c.detail ?? "")),
  );
  const parts = [
    el("h4", {}, "The log and its witnesses"),
    ...warnings.map((w) => el("p", { class: "status bad" }, w)),
    el(
      "p",
      { id: "log-result", class: result.ok ? "verified" : "failed" },
      result.ok ? "This service's log checks out in this browser." : "This service's log FAILED the checks in this browser: do not trust what it shows.",
    ),
  ];
  if (result.fork) {
    parts.push(
      el(
        "div",
        { id: "split-view", class: "split" },
        el("b", {}, "Split view: this service has shown this browser two different histories under the same log key."),
        el("div", {}, "The checkpoint this browser kept before, and the one it is shown now; both are signed by the log key, and neither extends the other:"),
        el("div", { class: "two" }, el("pre", { id: "fork-first" }, result.fork.first), el("pre", { id: "fork-second" }, result.fork.second)),
        el("div", { class: "muted" }, result.fork.detail),
      ),
    );
  }
  parts.push(el("table", { class: "checks", id: "log-checks" }, ...rows));
  parts.push(witnessList(result, policy));
  parts.push(policyEditor(policy, logKey));
  box.replaceChildren(...parts);
  box.dataset.ok = result.ok ? "1" : "0";
  return result;
}

function witnessList(result, policy) {
  if (!policy || policy.witnesses.length === 0) return el("p", { class: "muted", id: "witness-list" }, "No witnesses in this browser's policy.");
  return el(
    "div",
    { id: "witness-list" },
    el("div", {}, `Witness policy: ${policy.quorum} of ${policy.witnesses.length} must cosign`),
    el(
      "ul",
      {},
      ...result.witnesses.map((w) =>
        el("li", { class: w.cosigned ? "ok" : "bad", "data-witness": w.name }, `${w.cosigned ? "\u2713" : "\u2717"} ${w.name} `, el("span", { class: "muted" }, w.cosigned ? "cosigned this checkpoint" : "did not cosign this checkpoint")),
      ),
    ),
  );
}

function policyEditor(policy, logKey) {
  const keys = el("textarea", { id: "policy-keys", rows: "3", cols: "60", spellcheck: "false", style: "max-width: 100%; box-sizing: border-box" });
  keys.value = policy ? policy.witnesses.join("\n") : "";
  const quorum = el("input", { id: "policy-quorum", type: "number", min: "0", value: String(policy ? policy.quorum : 0) });
  const status = el("span", { id: "policy-status", class: "status" });
  const save = el("button", {
    id: "policy-save",
    class: "call",
    onclick: async () => {
      try {
        await savePolicy(localStorage, keys.value.split("\n"), Number(quorum.value));
        await showLogView(logKey);
      } catch (err) {
        status.textContent = `Not saved: ${err.message}`;
        status.className = "status bad";
      }
    },
  }, "Save policy");
  return el(
    "details",
    { id: "policy-editor" },
    el("summary", {}, "The pinned policy (pinned on first use from this service's list; edit it here)"),
    el("label", { class: "muted", for: "policy-keys", style: "display: block" }, "Witness keys (cosignature/v1, one per line):"),
    keys,
    el("div", {}, el("label", { for: "policy-quorum" }, "Quorum: "), quorum, " ", save, " ", status),
    el("div", { class: "muted" }, "Pinned log key: ", el("code", { id: "pinned-log-key" }, logKey)),
  );
}
