// The table's chat (api/chat.py), at the live table: the messages of the four seats to the
// whole table, each an event signed in its writer's browser and kept in the log. The
// table's stream sends the chat's state (a `chat` message) on connect and after each
// message. Text is put in the page as text (textContent), never as HTML.

import { el } from "./table.js";
import { signEvent } from "./keys.js";
import { fetchRetry } from "./retry.js";

const $ = (id) => document.getElementById(id);
export const MAX_TEXT = 300;

export class ChatPanel {
  constructor(view) {
    this.view = view;
    this.state = null;
    this.box = $("chat");
    this.log = $("chat-log");
    this.form = $("chat-form");
    this.input = $("chat-text");
    this.off = $("chat-off");
    this.seen = 0;
    if (this.form) {
      this.form.addEventListener("submit", (e) => {
        e.preventDefault();
        this.send().catch((err) => this.view.say(`Could not send the message: ${err.message}`, true));
      });
    }
  }

  /** The chat's state from the stream: {enabled, next_seq, last_hash, messages}. */
  update(state) {
    this.state = state;
    if (!this.box) return;
    this.box.hidden = false;
    this.off.hidden = state.enabled;
    const seated = Boolean(this.view.identity && this.view.seat);
    this.form.hidden = !state.enabled || !seated;
    const items = state.messages.map((m) =>
      el(
        "li",
        { "data-seq": String(m.seq), "data-seat": m.seat ?? "" },
        el("b", {}, `${m.seat && m.seat === this.view.seat ? "You" : `${m.seat ?? "?"} \u00b7 ${m.name}`}: `),
        el("span", { class: "chat-text" }, m.text),
      ),
    );
    this.log.replaceChildren(...items);
    this.log.hidden = items.length === 0;
    this.log.scrollTop = this.log.scrollHeight;
    this.seen = state.next_seq;
  }

  async send() {
    const text = this.input.value.trim();
    if (!text || !this.state) return;
    if (text.length > MAX_TEXT) {
      this.view.say(`A message is at most ${MAX_TEXT} characters.`, true);
      return;
    }
    let seq = this.state.next_seq;
    let prev = this.state.last_hash;
    for (let attempt = 0; attempt < 3; attempt++) {
      const event = await signEvent(this.view.identity, {
        origin: await this.view.loadOrigin(),
        table: this.view.tableId,
        hand: "chat",
        seq,
        prev,
        type: "chat",
        body: { text },
      });
      const resp = await fetchRetry(`/v1/tables/${encodeURIComponent(this.view.tableId)}/chat`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(event),
      });
      if (resp.ok) {
        this.input.value = "";
        this.view.say("");
        return;
      }
      const err = await resp.json().catch(() => ({}));
      if (err.code === "REPLAYED_EVENT" && err.details && Number.isInteger(err.details.expected_seq)) {
        ({ expected_seq: seq, expected_prev: prev } = err.details); // another message came first
        continue;
      }
      this.view.say(`The message was refused: ${err.message ?? resp.status}`, true);
      return;
    }
  }
}
