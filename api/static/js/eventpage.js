// The event page's entrant panel (#entrant): make a key and register as /play does, invite
// a partner (a link or code, or their player name) or accept an invitation, enter (the
// seed kept in this browser before its commitment is sent), withdraw before the start,
// reveal the seed when the event asks for it, then "now: round r, table t, seat X,
// against ..." and off to the table, and the entrant's own results by signed reads: a
// duplicate's boards, or a round robin's matches (a sitting there plays `hands` hands,
// not boards; docs/browser.md).
// Every action is signed by the person's own key (keys.js); the panel follows the event
// by reading its public state every few seconds.

import { createKey, loadIdentity, saveIdentity } from "./keys.js";
import { SEAT_NAME, entrantSeed, isRobin, nameOf, opponents, pairOf, placeOf, register, reveal, request, sittingPlays, withdraw } from "./entrant.js";

const EVERY_MS = 3000;
const box = document.getElementById("entrant");
const body = document.getElementById("entrant-body");
const status = document.getElementById("entrant-status");
const tid = box.dataset.event;
const t = encodeURIComponent(tid);
const inviteInUrl = new URLSearchParams(location.search).get("invite");

const state = { identity: null, known: false, doc: null, invitations: [], linked: null, card: null, tableDone: false, handNow: 0, revealed: null, missingSeed: false, backup: null };
let shown = "";
let busy = false;

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v !== false && v !== null && v !== undefined) node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) node.append(c);
  return node;
}

function say(text, bad = false) {
  status.textContent = text;
  status.className = bad ? "status bad" : "status";
}

const when = (unix) => `${new Date(unix * 1000).toISOString().slice(0, 16).replace("T", " ")} UTC`;
const grouped = (code) => `${code.slice(0, 5)}-${code.slice(5)}`;
const refused = (r) => r.doc.message ?? `the service answered ${r.status}`;

/** One signed action, its refusal said next to the panel; the panel is drawn again after. */
async function act(what, fn) {
  if (busy) return;
  busy = true;
  say(what);
  try {
    const r = await fn();
    if (r && !r.ok) say(`Refused: ${refused(r)}`, true);
    else say("");
  } catch (err) {
    say(`Could not do it: ${err.message}`, true);
  } finally {
    busy = false;
  }
  await tick(false);
}

// ------------------------------------------------------------------ reading the event

async function read() {
  state.doc = (await request("GET", `/v1/tournaments/${t}`)).doc;
  const me = state.identity;
  if (!me || !state.known) return;
  const phase = state.doc.phase;
  if (phase === "registration" || phase === "closed") {
    const r = await request("GET", `/v1/tournaments/${t}/invitations`, { identity: me });
    state.invitations = r.ok ? r.doc.invitations : [];
    if (inviteInUrl && !state.linked) {
      const l = await request("GET", `/v1/tournaments/${t}/invitations/${encodeURIComponent(inviteInUrl)}`);
      state.linked = l.ok ? l.doc : { error: refused(l) };
    }
  }
  const pair = pairOf(state.doc, me.id);
  if (pair && (phase === "playing" || phase === "over")) {
    const r = await request("GET", `/v1/tournaments/${t}/pairs/${pair}`, { identity: me });
    state.card = r.ok ? r.doc : null;
  }
  const place = phase === "playing" ? placeOf(state.doc, me.id) : null;
  state.tableDone = false;
  state.handNow = 0;
  if (place && place.table && !place.over) {
    const r = await request("GET", `/v1/tables/${encodeURIComponent(place.id)}/hands`, { identity: me });
    const over = r.ok ? r.doc.hands.filter((h) => h.phase === "over").length : 0;
    if (isRobin(state.doc)) {
      // a match is over when its hands are (a voided hand is dealt again: not counted)
      state.tableDone = r.ok && over >= place.hands;
      state.handNow = Math.min(over + 1, place.hands);
    } else {
      const boards = place.boards.filter((b) => !(state.doc.voided ?? []).includes(b));
      state.tableDone = r.ok && over >= boards.length;
    }
  }
}

const entryOf = (doc, pid) => (doc.entrants ?? []).find((e) => e.player === pid) ?? null;

/** What the page does by itself: enter once a partner is fixed, reveal when asked, go to
 * the entrant's table when a round seats them. */
async function moveOn() {
  const { doc, identity: me } = state;
  if (!me || !state.known) return;
  const entry = entryOf(doc, me.id);
  if (doc.phase === "registration" && !entry) {
    const fixed = state.invitations.find((i) => i.accepted_by && (i.inviter === me.id || i.accepted_by === me.id));
    if (fixed) {
      const partner = fixed.inviter === me.id ? fixed.accepted_by : fixed.inviter;
      await act(`Entering with ${await nameOf(partner)}\u2026`, () => register(me, tid, partner));
    }
    return;
  }
  if (doc.phase === "revealing" && entry && !entry.revealed && pairOf(doc, me.id) && state.revealed !== "sent") {
    if (!entrantSeed(tid, me.id, false)) {
      state.missingSeed = true;
      return;
    }
    state.revealed = "sent";
    await act("Revealing your seed\u2026", async () => {
      const r = await reveal(me, tid);
      if (!r.ok) state.revealed = r.status === 409 ? "refused" : null; // a deadline passed: not again
      return r;
    });
    return;
  }
  const place = doc.phase === "playing" ? placeOf(doc, me.id) : null;
  if (place && place.table && !place.over && !state.tableDone) {
    const went = `cayenne-fairplay:went:${place.id}`;
    if (!sessionStorage.getItem(went)) {
      sessionStorage.setItem(went, "1"); // once: coming back here stays here
      location.href = `/play/${encodeURIComponent(place.id)}`;
    }
  }
}

// ------------------------------------------------------------------ drawing the panel

async function keyPanel() {
  const name = el("input", { id: "entrant-name", autocomplete: "nickname", maxlength: "64" });
  const made = state.identity;
  return [
    el("p", {}, made ? `This browser holds the key of ${made.id}, not yet registered with this service.` : "To enter, this browser needs your own player key: it is made here and never leaves this browser; it signs your entry and your every card."),
    el("p", {}, el("label", { for: "entrant-name" }, "Your player name "), name, " ",
      el("button", { type: "button", id: "entrant-key", onclick: () => act("Making your key\u2026", () => makeKey(name.value)) }, made ? "Register my key" : "Make my key and register")),
    el("p", { class: "muted" }, "Already have a key? Import its backup on the ", el("a", { href: "/play" }, "Play page"), ", then come back."),
  ];
}

async function makeKey(typed) {
  if (!state.identity) {
    const made = await createKey();
    await saveIdentity(made.identity);
    state.identity = made.identity;
    state.backup = URL.createObjectURL(new Blob([made.backup], { type: "text/plain" }));
  }
  const r = await request("POST", "/v1/players", { body: { name: typed.trim() || "player", public_key: state.identity.verifierKey } });
  if (r.ok || r.status === 409) state.known = true;
  return r.ok || r.status === 409 ? { ok: true } : r;
}

function enterPanel() {
  const partner = el("input", { id: "partner-name", maxlength: "64" });
  const code = el("input", { id: "invite-code", maxlength: "20", autocapitalize: "characters", spellcheck: "false" });
  const invite = (bodyOf) => act("Making your invitation\u2026", () => request("POST", `/v1/tournaments/${t}/invitations`, { body: bodyOf, identity: state.identity }));
  return [
    el("p", {}, "You enter with a partner. Invite yours with a link (or its code) to send them, or by their player name; or accept the invitation your partner sent you."),
    el("p", {}, el("button", { type: "button", id: "invite", onclick: () => invite({}) }, "Invite a partner")),
    el("p", {}, el("label", { for: "partner-name" }, "Or your partner's player name "), partner, " ",
      el("button", { type: "button", id: "invite-by-name", onclick: () => invite({ partner_name: partner.value.trim() }) }, "Invite by name")),
    el("p", {}, el("label", { for: "invite-code" }, "Or the code your partner sent you "), code, " ",
      el("button", { type: "button", id: "accept-code", onclick: () => accept(code.value) }, "Accept and enter")),
  ];
}

async function accept(code) {
  const clean = code.trim().toUpperCase().replace(/[\s-]/g, "");
  await act("Accepting the invitation\u2026", () => request("POST", `/v1/tournaments/${t}/invitations/${encodeURIComponent(clean)}/accept`, { body: {}, identity: state.identity }));
}

function withdrawButton() {
  return el("button", { type: "button", id: "withdraw", onclick: () => {
    if (!confirm("Withdraw from this event? This key cannot enter it again.")) return;
    act("Withdrawing\u2026", () => withdraw(state.identity, t));
  } }, "Withdraw from this event");
}

const deadline = (doc) => (doc.reveal_deadline ? `, before the reveal deadline ${when(doc.reveal_deadline)}` : "");

async function registrationPanel(doc, me) {
  const entry = entryOf(doc, me.id);
  if (entry && entry.removed) return [el("p", { id: "entrant-state", "data-state": "withdrawn" }, "You have withdrawn from this event (or its director removed you): this key cannot enter it again.")];
  if (entry) {
    const mate = entryOf(doc, entry.partner);
    const formed = mate && mate.partner === me.id && !mate.removed;
    const who = await nameOf(entry.partner);
    const next = doc.phase === "closed" ? "Registration is closed; the director starts the event next." : `Next, registration closes and the director starts the event${doc.schedule ? ` (${doc.schedule})` : ""}.`;
    return [
      el("p", { id: "entrant-state", "data-state": formed ? "paired" : "entered" }, formed ? `You have entered with ${who}: your pair is formed.` : mate && mate.removed ? `${who}, the partner you named, has withdrawn: withdraw too, or ask the director.` : `You have entered naming ${who} as your partner; waiting for them to enter.`),
      el("p", {}, `${next} Then this page reveals your seed, which it keeps in this browser: open this page again when the event starts${deadline(doc)}. You may withdraw until the start.`),
      el("p", {}, withdrawButton()),
    ];
  }
  if (doc.phase !== "registration") return [el("p", { id: "entrant-state", "data-state": "closed" }, "Registration is closed: you have not entered this event.")];
  const out = [];
  const accepted = state.invitations.find((i) => i.accepted_by);
  if (accepted) return [el("p", { id: "entrant-state", "data-state": "entering" }, `Entering with ${accepted.inviter === me.id ? accepted.accepted_by_name : accepted.inviter_name}\u2026`)];
  const offers = state.invitations.filter((i) => i.invitee === me.id && i.inviter !== me.id);
  const linked = state.linked && !state.linked.error && state.linked.inviter !== me.id && !state.linked.accepted_by ? [state.linked] : [];
  if (state.linked && state.linked.error) out.push(el("p", { class: "status bad" }, `The invitation in this link: ${state.linked.error}`));
  for (const i of [...linked, ...offers.filter((o) => !linked.some((l) => l.code === o.code))]) {
    out.push(el("p", { class: "offer" }, `${i.inviter_name ?? i.inviter} invites you to be their partner in this event. `,
      el("button", { type: "button", class: "accept-invitation", "data-code": i.code, onclick: () => accept(i.code) }, "Accept and enter")));
  }
  const mine = state.invitations.find((i) => i.inviter === me.id);
  if (mine) {
    const link = new URL(mine.link, location.href).href;
    out.push(
      el("p", { id: "entrant-state", "data-state": "invited" }, mine.invitee ? `Your invitation is sent to ${mine.invitee_name}: it shows on their page of this event.` : "Send your partner this link, or the code:"),
      mine.invitee ? null : el("p", { class: "invite" }, el("a", { id: "invite-link", href: link }, link), " \u00b7 code ", el("b", { id: "invite-code-shown" }, grouped(mine.code))),
      el("p", {}, "When your partner accepts, this page enters you both: keep it open, or come back before registration closes."),
      el("p", {},
        el("button", { type: "button", id: "invite-again", onclick: () => act("Making a new invitation\u2026", () => request("POST", `/v1/tournaments/${t}/invitations`, { body: {}, identity: me })) }, "Make a new code instead"), " ",
        el("button", { type: "button", id: "invite-cancel", onclick: () => act("Taking the invitation back\u2026", () => request("POST", `/v1/tournaments/${t}/invitations/${encodeURIComponent(mine.code)}/cancel`, { body: {}, identity: me })) }, "Take the invitation back")),
    );
    return out;
  }
  return [...out, ...enterPanel()];
}

async function playingPanel(doc, me) {
  const entry = entryOf(doc, me.id);
  const pair = pairOf(doc, me.id);
  if (!entry && !pair) return [el("p", { id: "entrant-state", "data-state": "watching" }, "You have not entered this event: you are watching it.")];
  if (!pair) return [el("p", { id: "entrant-state", "data-state": "unpaired" }, "Your partner did not enter naming you: you are in no pair of this event.")];
  const out = [];
  if (doc.phase === "revealing") {
    if (state.missingSeed) {
      out.push(el("p", { id: "entrant-state", "data-state": "no-seed", class: "status bad" }, `This browser does not hold your seed for this event: open this page in the browser where you entered${deadline(doc)}, or your pair is withdrawn ${isRobin(doc) ? "when round 1 starts" : "when the boards are dealt"}.`));
    } else if (entry && entry.revealed) {
      const after = doc.reveal_deadline ? `after the reveal deadline (${when(doc.reveal_deadline)})` : "once every entrant has revealed";
      out.push(el("p", { id: "entrant-state", "data-state": "revealed" }, isRobin(doc)
        ? `Your seed is revealed. Round 1 starts ${after}, and this page takes you to your table; there each hand is dealt by its own shuffle ceremony, which your table's page does for you.`
        : `Your seed is revealed. The boards are dealt ${after}; then round 1 starts and this page takes you to your table.`));
    } else {
      out.push(el("p", { id: "entrant-state", "data-state": "revealing" }, `The event has started: this page reveals your seed now${deadline(doc)}. Keep it open.`));
    }
    return out;
  }
  if (doc.phase === "playing") {
    const place = placeOf(doc, me.id);
    if (!place || !place.table) {
      out.push(el("p", { id: "entrant-state", "data-state": "sitting-out" }, `Round ${place ? place.round : 1}: your pair sits out this round. This page takes you to your table when the next round starts.`));
    } else if (place.over || state.tableDone) {
      const last = place.round >= doc.rounds;
      out.push(el("p", { id: "entrant-state", "data-state": "between" }, `Round ${place.round} of ${doc.rounds}: your table has finished its ${isRobin(doc) ? "match" : "boards"}. ${last ? "The results are published when every table has finished." : `Round ${place.round + 1} starts when every table has finished; this page then takes you to your next table.`}`));
    } else {
      const against = await opponents(place);
      out.push(
        el("p", { id: "now", "data-state": "now", "data-table": place.id }, el("b", {}, "Now: "), `round ${place.round}, table ${place.table}, seat ${SEAT_NAME[place.seat]} (${place.seat}), against ${against} (pair ${place.against}); ${sittingPlays(place)}${state.handNow ? ` (hand ${state.handNow} of ${place.hands} now)` : ""}.`),
        el("p", {}, el("a", { id: "go-to-table", class: "button", href: `/play/${encodeURIComponent(place.id)}` }, "Go to your table")),
      );
    }
  } else {
    out.push(el("p", { id: "entrant-state", "data-state": "over" }, "The event is over. ", el("a", { href: `/tournaments/${t}/certificate`, id: "to-certificate" }, "Its certificate"), ": verify it in this browser."));
  }
  out.push(isRobin(doc) ? await matchesTable(doc, pair) : resultsTable(pair));
  return out;
}

/** A round robin's own results: the pair card's matches (those with a finished hand),
 * each with its opponents, the hands finished and the match value from this pair's side. */
async function matchesTable(doc, pair) {
  const rows = state.card ? state.card.results : [];
  const head = el("h4", {}, `Your matches (pair ${pair})`);
  if (!rows.length) return el("div", { id: "my-results" }, head, el("p", { class: "muted" }, "No hand of yours is finished yet: your match shows here as soon as your table has played its first hand."));
  const sittingOf = (m) => (doc.rounds_played ?? []).find((r) => r.round === m.round)?.tables.find((s) => String(s.table) === String(m.table));
  const lines = [];
  for (const m of rows) {
    const s = sittingOf(m);
    const ns = s ? s.ns === pair : false;
    const other = s ? (ns ? s.ew : s.ns) : null;
    const who = (await Promise.all((ns ? m.ew : m.ns).map(nameOf))).join(" \u2013 ");
    const value = ns ? m.ns_value : -m.ns_value;
    lines.push(el("tr", { "data-match": `${m.round}-${m.table}` },
      el("td", { "data-label": "round" }, String(m.round)),
      el("td", { "data-label": "table" }, String(m.table)),
      el("td", { "data-label": "against" }, other ? `pair ${other}: ${who}` : who),
      el("td", { "data-label": "side" }, ns ? "NS" : "EW"),
      el("td", { "data-label": "hands" }, `${m.hands}${s && s.hands ? ` of ${s.hands}` : ""}`),
      el("td", { "data-label": "match value", class: "num" }, value > 0 ? `+${value}` : String(value))));
  }
  return el("div", { id: "my-results" }, head,
    el("table", { class: "reflow" }, el("tr", {}, ...["round", "table", "against", "side", "hands", "match value"].map((h) => el("th", {}, h))), ...lines),
    el("p", { class: "muted" }, "A match's value is your side's total score on its rubber score sheet less your opponents', over the hands finished so far. A round robin's tables are public, as are its matches."));
}

function resultsTable(pair) {
  const rows = state.card ? state.card.results : [];
  const head = el("h4", {}, `Your results (pair ${pair})`);
  if (!rows.length) return el("div", { id: "my-results" }, head, el("p", { class: "muted" }, "No board of yours is finished yet: each shows here as soon as your table has played it."));
  const line = (r) => {
    const ns = r.side === "NS";
    const score = r.ns_score === null || r.ns_score === undefined ? "\u2014" : String(ns ? r.ns_score : -r.ns_score);
    const mp = ns ? r.ns_matchpoints : r.ew_matchpoints;
    return el("tr", { "data-board": String(r.board) }, el("td", { "data-label": "board" }, el("a", { href: `/tournaments/${t}/boards/${r.board}` }, String(r.board))), el("td", { "data-label": "round" }, String(r.round)), el("td", { "data-label": "side" }, r.side), el("td", { "data-label": "score" }, score), el("td", { "data-label": "matchpoints" }, String(mp)));
  };
  return el("div", { id: "my-results" }, head,
    el("table", { class: "reflow" }, el("tr", {}, ...["board", "round", "side", "score", "matchpoints"].map((h) => el("th", {}, h))), ...rows.map(line)),
    el("p", { class: "muted" }, "Matchpoints compare your score with the tables that have played the board so far. Other tables' results stay hidden until the event ends."));
}

async function panel() {
  const { doc, identity: me } = state;
  if (!me || !state.known) {
    if (doc.phase !== "registration") return [el("p", { id: "entrant-state", "data-state": "no-key" }, doc.phase === "created" ? "Registration is not open yet." : "This browser holds no registered key: you are watching this event.")];
    return keyPanel();
  }
  const who = el("p", { class: "muted" }, `Your key: ${me.id}${state.backup ? "" : ""}`);
  const backup = state.backup ? el("p", {}, el("a", { id: "backup-link", href: state.backup, download: "cayenne-player.key" }, "Save your key's backup file"), " \u2014 it is the only way to play as this player in another browser.") : null;
  if (doc.phase === "created") return [who, el("p", { id: "entrant-state", "data-state": "not-open" }, "Registration is not open yet: come back when it opens.")];
  if (doc.phase === "registration" || doc.phase === "closed") return [who, backup, ...(await registrationPanel(doc, me))];
  return [who, backup, ...(await playingPanel(doc, me))];
}

async function draw() {
  const parts = await panel();
  const fresh = el("div", {}, ...parts);
  if (fresh.innerHTML === shown) return; // unchanged: what the person types is kept
  const focused = document.activeElement && body.contains(document.activeElement) ? document.activeElement.id : null;
  shown = fresh.innerHTML;
  body.replaceChildren(...fresh.childNodes);
  if (focused && document.getElementById(focused)) document.getElementById(focused).focus();
  box.dataset.state = body.querySelector("[data-state]")?.dataset.state ?? "";
}

async function tick(again = true) {
  try {
    await read();
    await draw();
    if (!busy) await moveOn();
  } catch (err) {
    say(`The service did not answer: ${err.message}`, true);
  }
  if (again && state.doc && state.doc.phase !== "over") setTimeout(tick, EVERY_MS);
  else if (again) await draw();
}

async function start() {
  state.identity = await loadIdentity();
  if (state.identity) state.known = (await request("GET", `/v1/players/${encodeURIComponent(state.identity.id)}`)).ok;
  await tick();
  document.body.dataset.entrantReady = "1";
}

start().catch((err) => say(`This browser cannot enter here: ${err.message}`, true));
