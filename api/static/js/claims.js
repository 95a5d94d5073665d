// A claim of the tricks left, at the live table (table.js draws the rest; docs/rules.md,
// "Claims"): a seat that may claim (between tricks) names how many of the tricks left its
// side takes; while the claim waits, the claimer's cards are shown to the three other
// seats (the service sends them in that seat's own view, never to a spectator) and each
// adversary accepts or refuses, each answer an event signed in this browser.

import { cardFace, cardName, el } from "./table.js";

const $ = (id) => document.getElementById(id);
const SIDE = { N: "N-S", S: "N-S", E: "E-W", W: "E-W" };

export class ClaimPanel {
  constructor(view) {
    this.view = view;
    this.box = $("claim-box");
    this.said = ""; // the pending claim last announced
  }

  /** Draw the panel for the hand `h` and this seat's view `cards` (null: a spectator). */
  update(h, cards) {
    if (!this.box) return;
    const view = this.view;
    const claim = h.play && h.phase === "playing" ? h.play.claim : null;
    if (claim) {
      this.box.replaceChildren(this.pending(h, claim, cards && cards.claim));
      this.box.hidden = false;
      const key = `${h.hand}:${claim.claimer}:${claim.left}:${claim.accepted.join()}`;
      if (key !== this.said) {
        this.said = key;
        view.announce(this.words(claim, cards && cards.claim));
      }
      return;
    }
    this.said = "";
    const claimed = h.play && h.play.claimed;
    if (claimed) {
      this.box.replaceChildren(
        el("p", { id: "claim-result" }, `${view.seatName(claimed.claimer)} claimed ${claimed.tricks} of the tricks left for ${SIDE[claimed.claimer]}; ${claimed.agreed.map((s) => view.seatName(s)).join(" and ")} agreed. The cards not played are not tricks.`),
      );
      this.box.hidden = false;
      return;
    }
    if (h.phase === "playing" && cards && cards.may_claim && view.identity && view.seat) {
      const left = 13 - h.play.tricks.filter((t) => t.winner).length;
      this.box.replaceChildren(this.form(h, left));
      this.box.hidden = false;
      return;
    }
    this.box.replaceChildren();
    this.box.hidden = true;
  }

  words(claim, mine) {
    const view = this.view;
    const who = view.seatName(claim.claimer);
    let text = `${who} claims ${claim.tricks} of the ${claim.left} tricks left for ${SIDE[claim.claimer]}.`;
    if (mine && mine.cards) text += ` ${who === "You" ? "Your" : "Their"} cards: ${mine.cards.map(cardName).join(", ")}.`;
    if (mine && mine.to_answer) text += " Accept or refuse the claim.";
    return text;
  }

  form(h, left) {
    const options = Array.from({ length: left + 1 }, (_, n) => el("option", { value: String(n), selected: n === left }, String(n)));
    const select = el("select", { id: "claim-tricks", name: "tricks" }, ...options);
    const side = SIDE[this.view.seat];
    return el(
      "form",
      {
        id: "claim-form",
        class: "claim-form",
        onsubmit: (e) => {
          e.preventDefault();
          this.claim(Number(select.value));
        },
      },
      el("label", { for: "claim-tricks" }, `Claim for ${side}, of the ${left} tricks left:`),
      select,
      el("button", { type: "submit", id: "claim-button", class: "call" }, "Claim"),
    );
  }

  pending(h, claim, mine) {
    const view = this.view;
    const waiting = claim.waiting_for.map((s) => view.seatName(s)).join(" and ");
    const parts = [
      el("h4", { id: "claim-title" }, `${view.seatName(claim.claimer)} claims ${claim.tricks} of the ${claim.left} tricks left for ${SIDE[claim.claimer]}`),
    ];
    if (mine && mine.cards) {
      parts.push(
        el("p", {}, `${view.seatName(claim.claimer)}'s cards, shown for the claim:`),
        el("div", { id: "claim-cards", role: "group", "aria-label": `${view.seatName(claim.claimer)}'s cards` }, ...mine.cards.map((c) => cardFace(c))),
      );
    }
    if (mine && mine.to_answer) {
      const busy = view.sending === `${h.hand}:${h.next_seq}`;
      parts.push(
        el(
          "div",
          { class: "claim-answer" },
          el("button", { type: "button", id: "claim-accept", class: "call", disabled: busy, onclick: () => this.answer(true) }, "Accept the claim"),
          el("button", { type: "button", id: "claim-refuse", class: "call", disabled: busy, onclick: () => this.answer(false) }, "Refuse the claim"),
        ),
      );
    } else {
      parts.push(el("p", { class: "muted" }, `Waiting for ${waiting} to answer. No card is played meanwhile.`));
    }
    return el("section", { id: "claim-pending", class: "claim", "aria-labelledby": "claim-title" }, ...parts);
  }

  async claim(tricks) {
    const view = this.view;
    view.keepFocus = true;
    view.sending = `${view.hand.hand}:${view.hand.next_seq}`;
    await view.send("claim", { tricks });
  }

  async answer(accept) {
    const view = this.view;
    view.sending = `${view.hand.hand}:${view.hand.next_seq}`;
    view.render();
    if (await view.send("claim_answer", { accept })) {
      view.say(accept ? "You accepted the claim." : "You refused the claim: the play goes on.");
    }
  }
}
