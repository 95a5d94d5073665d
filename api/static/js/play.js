// The /play page: make or import the player's key, register it, open a table against
// the house bots (api/house.py) or a table of people (people.js: create one, the lobby,
// my tables). The private key stays in this browser (keys.js).

import { fetchRetry } from "./retry.js";
import { People } from "./people.js";
import { createKey, forgetIdentity, importBackup, loadIdentity, readHeader, saveIdentity, writeHeader } from "./keys.js";

const $ = (id) => document.getElementById(id);
const people = new People();

function say(id, text, bad = false) {
  const box = $(id);
  if (!box) return;
  box.textContent = text;
  box.className = bad ? "status bad" : "status";
}

async function api(method, path, body, identity, write = false) {
  const text = body === undefined ? undefined : JSON.stringify(body);
  // A signed write (its body and a nonce) is signed once: a retry is the same request.
  const signed = identity && write ? await writeHeader(identity, method, path, text ?? "") : null;
  const init = async () => {
    const headers = { "Content-Type": "application/json" };
    if (signed) headers.Authorization = signed;
    else if (identity) headers.Authorization = await readHeader(identity, method, path);
    return { method, headers, body: text };
  };
  const resp = await fetchRetry(path, init);
  const doc = await resp.json().catch(() => ({}));
  return { ok: resp.ok, status: resp.status, doc };
}

async function registered(identity) {
  const r = await api("GET", `/v1/players/${identity.id}`);
  return r.ok;
}

async function show(identity, backup = null) {
  $("key-none").hidden = Boolean(identity);
  $("key-made").hidden = !identity;
  const reg = $("register");
  const bots = $("play-bots");
  if (!identity) {
    if (reg) reg.disabled = true;
    if (bots) bots.disabled = true;
    await people.ready(null, false);
    return;
  }
  $("player-id").textContent = identity.id;
  $("public-key").textContent = identity.verifierKey;
  if (backup) {
    const link = $("backup-link");
    link.href = URL.createObjectURL(new Blob([backup], { type: "text/plain" }));
    $("backup-offer").hidden = false;
  }
  const known = await registered(identity);
  if (reg) {
    reg.disabled = known;
    reg.textContent = known ? "Registered" : "Register my key";
  }
  if (bots) bots.disabled = !known;
  await people.ready(identity, known);
  if (known) say("register-status", "Your key is registered with this service.");
}

let identity = null;

function main() {
  $("create-key").addEventListener("click", async () => {
    try {
      const made = await createKey();
      identity = made.identity;
      await saveIdentity(identity);
      await show(identity, made.backup); // the one time the backup is offered
      say("key-status", "Key made. Only a non-extractable copy is kept in this browser.");
    } catch (err) {
      say("key-status", `Could not make a key: ${err.message}`, true);
    }
  });

  $("backup-file").addEventListener("change", async (e) => {
    const file = e.target.files[0];
    if (!file) return;
    try {
      identity = await importBackup(await file.text());
      await saveIdentity(identity);
      await show(identity);
      say("key-status", "Key imported from the backup file.");
    } catch (err) {
      say("key-status", `Not a backup of a key: ${err.message}`, true);
    }
  });

  $("forget-key").addEventListener("click", async () => {
    if (!confirm("Forget this key? Without its backup file you cannot play as this player again.")) return;
    await forgetIdentity();
    identity = null;
    $("backup-offer").hidden = true;
    await show(null);
  });

  const reg = $("register");
  if (reg) {
    reg.addEventListener("click", async () => {
      const name = $("name").value.trim() || "player";
      const r = await api("POST", "/v1/players", { name, public_key: identity.verifierKey });
      if (!r.ok && r.status !== 409) return say("register-status", `Refused: ${r.doc.message ?? r.status}`, true);
      await show(identity);
    });
  }

  const bots = $("play-bots");
  if (bots) {
    bots.addEventListener("click", async () => {
      bots.disabled = true;
      const r = await api("POST", "/v1/bot-tables", { name: `${$("name").value.trim() || "player"} v. the bots`.slice(0, 64) }, identity, true);
      if (!r.ok) {
        bots.disabled = false;
        return say("table-status", `Refused: ${r.doc.message ?? r.status}`, true);
      }
      location.href = `/play/${encodeURIComponent(r.doc.id)}`;
    });
  }
}

async function start() {
  main(); // the controls answer from now on
  people.wire();
  const kept = await loadIdentity();
  if (kept && !identity) identity = kept;
  await show(identity);
  document.body.dataset.ready = "1";
}

start().catch((err) => say("key-status", `This browser cannot play here: ${err.message}`, true));
