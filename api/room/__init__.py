"""The room: it owns a hand's life, from its opening through the shuffle ceremony, the
signed calls and plays, to its end, and the repairs of :mod:`api.room.repair`.

Its modules, one part each: :mod:`api.room.room` (:class:`Room`: a table's creation, an
event's way from the request to the log and the rows, the end of a hand),
:mod:`api.room.actions` (the ceremony's steps, the deal, the calls and plays, the
record), :mod:`api.room.opening` (a hand's opening and the server's events),
:mod:`api.room.states` (this process's caches: rules states, rows, locks),
:mod:`api.room.repair` (voids, and rows the log is ahead of) and :mod:`api.room.owner`
(the hooks of whoever owns some of its tables: the end of a hand handed to the event).

The room's public interface is :class:`Room`'s public members (``create_table``,
``submit``, ``state``, ``snapshot``, ``record_of``, and the steps the repairs and the
tournaments reuse: ``table``, ``hand_lock``, ``open_hand``, ``open_board``, ``accept``,
``server_event``, ``log_event``, ``forget``, ``following``); nothing outside this
package touches its private members.

A player's action is an event of the log's format, signed with the player's key. It is
checked in this order, and nothing is stored or logged unless every check passes:

1. shape: the log's event rules and the JSON Schema of the action's type
   (``audit/log/schema/``: no unknown field, bounded sizes, ``time`` in RFC 3339 UTC),
   binding to the log's origin, this table and this hand (400);
2. the actor is seated at this table (403);
3. the Ed25519 signature, under the key the player registered (401);
4. ``seq`` and ``prev`` name the hand's next event: a replayed or stale event is refused
   (409 ``REPLAYED_EVENT``);
5. the ceremony or the rules engine accepts the action (409 out of turn or wrong phase;
   422 a card not held, a revoke, a bad call, a seed that does not open its commitment).

Then the event is appended to the log, which re-checks signature, key and chain under its
own lock: of two different events racing for the same ``seq`` exactly one wins, the other
answers 409. The hand's row (``api_hands``) is then updated with a compare-and-set on its
event count.

The log is the truth and the rows are derived from it. An event refused while the log
is ahead of the hand's row (a host died between its append and its row write, or is
between the two) is judged again once the row is brought up to the log
(:func:`api.room.repair.catch_up`), whoever wrote it; an event the log already holds (a
client's retry, or the same event sent to two hosts) answers with its result, on any
host: a refused action is never one the log holds. The log is the hand's history; the rules state is rebuilt from it and cached per
process, keyed by the hand's event count, so a play costs no replay.

At the end of the hand the server reveals its seed (a logged event), the record (with its
shuffle transcript) is audited, the report stored, an ``end`` event logged, the log's
checkpoint advanced, and the next hand opened with the next dealer and pack. Rows the
log is ahead of after a crash, and voids, are :mod:`api.room.repair`'s.
"""

from __future__ import annotations

from api.room.owner import TableOwner
from api.room.room import Room
from api.room.states import MAX_CACHED

__all__ = ["MAX_CACHED", "Room", "TableOwner"]
