"""Shuffle throughput on one core, beside the raw hash calls it needs.

    .venv/bin/python bench/shuffle_bench.py [--n 20000] [--json]

For N distinct transcripts it measures, in one run: ``derive`` (key, both packs,
the deal by packet pattern, the cayenne card, the deal number), ``verify`` (the same
plus the five commitment checks) and ``verify_transcript`` (plus JSON parsing); then
the bare hash calls those operations need (1 SHA-256 for the key plus the HMAC-SHA256
blocks actually consumed, and 5 SHA-256 for the commitments), timed the same way.
The ratio says how much of the time is the protocol's own Python around the hashing.
Target: at least 20,000 transcripts derived and dealt per second.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import os
from typing import Any

from timing import best_of

from audit.rules.cards import Seat
from shuffle import kdf
from shuffle.permute import shuffle_pack_traced
from shuffle.protocol import SEAT_ORDER, SeatEntry, Transcript, derive, derive_key
from shuffle.verify import verify, verify_transcript


def transcripts(n: int) -> list[Transcript]:
    out = []
    for i in range(n):
        seeds = [hashlib.sha256(f"bench-{i}-{k}".encode()).digest() for k in range(5)]
        table, hand = f"table-{i % 50}", 1 + i
        entries = [
            SeatEntry(
                f"p{s}", kdf.seat_commitment(seeds[1 + s], s, f"p{s}", table, hand), seeds[1 + s]
            )
            for s in SEAT_ORDER
        ]
        out.append(
            Transcript(
                table=table,
                hand=hand,
                dealer=Seat(i % 4),
                server_commitment=kdf.server_commitment(seeds[0], table, hand),
                seats=(entries[0], entries[1], entries[2], entries[3]),
                server_seed=seeds[0],
            ).with_outcome()
        )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=20_000)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})  # one core

    ts = transcripts(args.n)
    objs = [t.to_json() for t in ts]
    keys = [derive_key(t) for t in ts]
    # The exact hash calls the derivation makes, rebuilt as bare calls.
    blocks = 0
    hmac_msgs: list[tuple[bytes, bytes]] = []
    for key in keys:
        for label in (kdf.LABEL_DEALING, kdf.LABEL_STILL):
            _, _, nb = shuffle_pack_traced(key, label)
            blocks += nb
            hmac_msgs.extend((key, kdf.field(label) + kdf.u64(i)) for i in range(nb))
    key_inputs = [
        kdf.key_input(
            t.table,
            t.hand,
            t.pack,
            t.dealer,
            t.pattern,
            b"",
            t.server_seed or b"",
            [e.seed or b"" for e in t.seats],
        )
        for t in ts
    ]
    commit_inputs = []
    for t in ts:
        commit_inputs.append(
            kdf.frame(
                kdf.LABEL_SERVER_COMMIT, t.table.encode(), kdf.u64(t.hand), t.server_seed or b""
            )
        )
        for s in SEAT_ORDER:
            e = t.seats[s]
            commit_inputs.append(
                kdf.frame(
                    kdf.LABEL_SEAT_COMMIT,
                    t.table.encode(),
                    kdf.u64(t.hand),
                    s.name.encode(),
                    e.player.encode(),
                    e.seed or b"",
                )
            )

    sha = hashlib.sha256
    digest = hmac.digest

    def raw_derive() -> None:
        for m in key_inputs:
            sha(m).digest()
        for k, m in hmac_msgs:
            digest(k, m, "sha256")

    def raw_verify() -> None:
        raw_derive()
        for m in commit_inputs:
            sha(m).digest()

    n = args.n
    results: dict[str, Any] = {"transcripts": n, "hmac_blocks_per_transcript": blocks / n}
    rows = [
        ("derive + deal + deal number", lambda: [derive(t) for t in ts], raw_derive),
        ("verify (+5 commitments)", lambda: [verify(t) for t in ts], raw_verify),
        (
            "verify_transcript (+JSON parse)",
            lambda: [verify_transcript(o) for o in objs],
            raw_verify,
        ),
    ]
    print(
        f"{n} transcripts, one core; {blocks / n:.2f} HMAC blocks per transcript "
        f"(2 packs), +1 SHA-256 key, +5 SHA-256 commitments when verifying"
    )
    print(f"{'operation':34} {'per second':>12} {'raw hashes/s':>14} {'ratio':>7}")
    for name, fn, raw in rows:
        t_op = best_of(fn)
        t_raw = best_of(raw)
        rate, raw_rate = n / t_op, n / t_raw
        results[name] = {
            "per_second": round(rate),
            "raw_hash_per_second": round(raw_rate),
            "ratio": round(t_op / t_raw, 2),
        }
        print(f"{name:34} {rate:12,.0f} {raw_rate:14,.0f} {t_op / t_raw:6.1f}x")
    target = results["derive + deal + deal number"]["per_second"]
    print(
        f"target >= 20,000 derived and dealt per second: {'met' if target >= 20_000 else 'MISSED'}"
    )
    if args.json:
        print(json.dumps(results))


if __name__ == "__main__":
    main()
