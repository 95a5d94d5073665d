// A page a duplicate event keeps to its players until it ends (a board's travelling score
// sheet, a pair's card): read again with this browser's key, a signed read of the same
// page, and shown when the service answers it to this player (one who has played the
// board, a member of the pair). Anyone else keeps the page that says it is hidden.

import { loadIdentity, readHeader } from "./keys.js";

async function ownRead() {
  const identity = await loadIdentity();
  if (!identity) return "no-key";
  const path = location.pathname + location.search;
  const resp = await fetch(path, { headers: { Accept: "text/html", Authorization: await readHeader(identity, "GET", path) } });
  if (!resp.ok) return "hidden";
  const fresh = new DOMParser().parseFromString(await resp.text(), "text/html").querySelector("main");
  const main = document.querySelector("main");
  if (!fresh || !main || fresh.querySelector("#hidden")) return "hidden";
  main.replaceWith(fresh);
  return "shown";
}

ownRead()
  .catch(() => "hidden")
  .then((state) => {
    document.body.dataset.ownRead = state;
  });
