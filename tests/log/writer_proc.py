"""A log writer run as a separate process by the crash and concurrency tests.

usage: python writer_proc.py URL TABLE BATCH BATCHES [START_AT]
Appends BATCHES batches of BATCH chained events (hands of 13 events at table TABLE) and
prints ``ack <last index> <size>`` after each acknowledged (committed) batch.
"""

from __future__ import annotations

import hashlib
import sys
import time

from audit.log.events import event_hash, make_event, sign_event
from audit.log.keys import generate_signer
from audit.log.store import open_log

ORIGIN = "fairplay.test/log"


def main() -> None:
    url, table, batch, batches = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    seed = hashlib.sha256(f"writer {table}".encode()).digest()
    log_key = generate_signer(ORIGIN, rng=lambda n: hashlib.sha256(b"log key").digest()[:n])
    player = generate_signer(f"player-{table}", rng=lambda n: seed[:n])
    log = open_log(url, ORIGIN, log_key, require_registered_keys=False)
    if len(sys.argv) > 5:  # a start barrier, so that concurrent writers really overlap
        time.sleep(max(0.0, float(sys.argv[5]) - time.time()))
    hand, seq, prev = 0, 0, None
    for _ in range(batches):
        events = []
        for _ in range(batch):
            ev = sign_event(
                make_event(
                    origin=ORIGIN,
                    table=table,
                    hand=str(hand),
                    seq=seq,
                    prev=prev,
                    actor=player.name,
                    type="play",
                    body={"n": seq},
                ),
                player,
            )
            events.append(ev)
            seq, prev = seq + 1, event_hash(ev)
            if seq == 13:
                hand, seq, prev = hand + 1, 0, None
        indices = log.append(events)
        print(f"ack {indices[-1]} {log.size()}", flush=True)
    log.close()


if __name__ == "__main__":
    main()
