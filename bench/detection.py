"""Detection benchmark for stacked bulk deals: false positives and power, side by side.

Simulates the previous hand's tricks and gathering, the pack as put together, then an
honest thorough shuffle or a cheat's (a cut only; 1, 2, 3 or 4 GSR riffles then a cut;
the book's greek: two tricks with two between, the rest as gathered, then a cut), deals
it by each packet pattern (4-4-5, 6-7, one at a time), and runs
``audit.stacking.stacking_test`` with and without ``dealt_order``. Prints the share of
deals flagged at alpha = 0.001 and 0.01 against the targets of issues 3 and 13, then a
dealer who gives two riffles every time, over 20 deals (``combine_p_values``), and the
per-deal cost.

``--reading`` is how the packs are put together: each pile's last trick on top
(``last``, the physical reading of ``gathered``), its first (``first``: a turned pile,
or a producer of the other convention) or either at random (``mixed``, the default);
``--pile-top`` is what the detector is told (``either``, as the auditor runs it).

    .venv/bin/python bench/detection.py [--reading mixed] [--trials 1000] [--honest 20000]
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from audit.rules.cards import Card, Seat, Side
from audit.rules.deal import PATTERNS, deal_from_order
from audit.stacking import StackingResult, combine_p_values, stacking_test
from audit.stacking.simulate import (
    book_cheat_pack,
    cut,
    gathered_pack,
    random_tricks,
    riffle,
    thorough,
)

ALPHAS = (0.001, 0.01)
Shuffle = Callable[[list[list[Card]], dict[Side, list[int]], list[Card], random.Random], list[Card]]


def _riffles(k: int) -> Shuffle:
    return lambda tricks, gathered, pack, rng: cut(riffle(pack, k, rng), rng)


SCENARIOS: dict[str, Shuffle] = {
    "honest (thorough shuffle)": lambda tricks, gathered, pack, rng: thorough(rng),
    "cut only": lambda tricks, gathered, pack, rng: cut(pack, rng),
    "1 riffle + cut": _riffles(1),
    "2 riffles + cut": _riffles(2),
    "3 riffles + cut": _riffles(3),
    "4 riffles + cut": _riffles(4),
    "book's cheat + cut": lambda tricks, gathered, pack, rng: cut(book_cheat_pack(pack, rng), rng),
}


def target(scenario: str, pattern: str, order: bool) -> str:
    """The issue's target at alpha = 0.001 for this cell."""
    if scenario.startswith("honest"):
        return "<= 0.001"
    if scenario == "cut only":
        return "1.000"
    if scenario.startswith("1 riffle") and pattern != "1":
        return ">= 0.99"
    if scenario.startswith("2 riffles") and not order and pattern == "4-4-5":
        return ">= 0.78"
    if scenario.startswith("book's"):
        return "1.000"
    if scenario.startswith("4 riffles") and order:
        return ">= 0.96"
    return ""


PILE_TOP = "either"
"""Set from ``--pile-top``: what the detector is told."""
READING: bool | None = None
"""Set from ``--reading``: each pile's first trick on top (True), its last (False), or
either at random (None)."""


def one_deal(
    shuffle: Shuffle,
    pattern: tuple[int, ...],
    with_order: bool,
    collected: bool,
    rng: random.Random,
) -> StackingResult | None:
    tricks, gathered = random_tricks(rng)
    pack = gathered_pack(tricks, gathered, rng, READING)
    dealt = shuffle(tricks, gathered, pack, rng)
    dealer = Seat(rng.randrange(4))
    deal = deal_from_order(dealt, dealer, pattern)
    return stacking_test(
        tricks,
        None if collected else gathered,
        pack if collected else None,
        deal,
        dealer,
        pattern,
        dealt if with_order else None,
        pile_top=PILE_TOP,
    )


def trick_mates(
    shuffle: Shuffle, pattern: tuple[int, ...], rng: random.Random
) -> tuple[int, float]:
    """Pairs of cards of one old trick in one hand, and stacking_test's p-value."""
    tricks, gathered = random_tricks(rng)
    pack = gathered_pack(tricks, gathered, rng, READING)
    dealt = shuffle(tricks, gathered, pack, rng)
    dealer = Seat(rng.randrange(4))
    deal = deal_from_order(dealt, dealer, pattern)
    hand_of = {c: seat for seat, cards in deal.items() for c in cards}
    mates = sum(
        hand_of[t[i]] == hand_of[t[j]] for t in tricks for i in range(4) for j in range(i + 1, 4)
    )
    r = stacking_test(tricks, gathered, None, deal, dealer, pattern)
    assert r is not None
    return mates, r.p_value


def rates(ps: list[float]) -> tuple[float, ...]:
    return tuple(sum(p <= a for p in ps) / len(ps) for a in ALPHAS)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=1000, help="deals per cheat cell")
    parser.add_argument("--honest", type=int, default=20000, help="honest deals per cell")
    parser.add_argument("--dealers", type=int, default=300, help="dealers of 20 deals")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--collected", action="store_true", help="reference from `collected`")
    parser.add_argument(
        "--pile-top",
        choices=("either", "last", "first"),
        default="either",
        help="what the detector is told (the auditor: either)",
    )
    parser.add_argument(
        "--reading",
        choices=("mixed", "last", "first"),
        default="mixed",
        help="how the packs are put together: each pile's last or first trick on top, or either",
    )
    args = parser.parse_args()
    global PILE_TOP, READING
    PILE_TOP = args.pile_top
    READING = {"mixed": None, "last": False, "first": True}[args.reading]
    rng = random.Random(args.seed)
    source = "collected" if args.collected else "gathered"
    print(
        f"reference from `{source}`, piles put together: {args.reading}, "
        f"detector told pile_top={PILE_TOP}; "
        "share of deals with p <= alpha (0.001 / 0.01)"
    )
    header = "| scenario | pattern | dealt_order | alpha=0.001 | alpha=0.01 | target at 0.001 |"
    print(header)
    print("|---|---|---|---|---|---|")
    for name, shuffle in SCENARIOS.items():
        n = args.honest if name.startswith("honest") else args.trials
        for pname, pattern in PATTERNS.items():
            for with_order in (False, True):
                ps = []
                for _ in range(n):
                    r = one_deal(shuffle, pattern, with_order, args.collected, rng)
                    assert r is not None
                    ps.append(r.p_value)
                a, b = rates(ps)
                order = "yes" if with_order else "no"
                tgt = target(name, pname, with_order)
                print(f"| {name} | {pname} | {order} | {a:.4f} | {b:.4f} | {tgt} |", flush=True)

    print()
    print("dealer combined over 20 deals (Fisher), share flagged at 0.001 / 0.01")
    print("| dealer | pattern | dealt_order | alpha=0.001 | alpha=0.01 | target at 0.001 |")
    print("|---|---|---|---|---|---|")
    for name, shuffle in (
        ("honest", SCENARIOS["honest (thorough shuffle)"]),
        ("2 riffles every deal", _riffles(2)),
        ("3 riffles every deal", _riffles(3)),
    ):
        for pname, pattern in PATTERNS.items():
            for with_order in (False, True):
                combined = []
                for _ in range(args.dealers):
                    deals = [one_deal(shuffle, pattern, with_order, args.collected, rng)]
                    deals += [
                        one_deal(shuffle, pattern, with_order, args.collected, rng)
                        for _ in range(19)
                    ]
                    combined.append(combine_p_values([d.p_value for d in deals if d]))
                a, b = rates(combined)
                order = "yes" if with_order else "no"
                tgt = {"honest": "<= 0.001", "2 riffles every deal": ">= 0.95"}.get(name, "")
                print(f"| {name} | {pname} | {order} | {a:.4f} | {b:.4f} | {tgt} |", flush=True)

    print()
    print("baseline: the simple count of trick-mates in one hand (its null simulated here)")
    print("| scenario | pattern | trick-mates 0.001 / 0.01 | stacking_test 0.001 / 0.01 |")
    print("|---|---|---|---|")
    for name in ("1 riffle + cut", "2 riffles + cut"):
        for pname in ("4-4-5", "6-7"):
            pattern = PATTERNS[pname]
            null = sorted(
                trick_mates(SCENARIOS["honest (thorough shuffle)"], pattern, rng)[0]
                for _ in range(args.honest)
            )
            cuts = [null[min(len(null) - 1, int(len(null) * (1 - a)))] for a in ALPHAS]
            pairs = [trick_mates(SCENARIOS[name], pattern, rng) for _ in range(args.trials)]
            base = [sum(m > c for m, _ in pairs) / len(pairs) for c in cuts]
            ours = rates([p for _, p in pairs])
            print(
                f"| {name} | {pname} | {base[0]:.3f} / {base[1]:.3f} "
                f"| {ours[0]:.3f} / {ours[1]:.3f} |",
                flush=True,
            )

    print()
    print("cost per deal of stacking_test (simulation excluded)")
    for with_order in (False, True):
        cases = []
        for _ in range(2000):
            tricks, gathered = random_tricks(rng)
            dealt = thorough(rng)
            dealer = Seat(rng.randrange(4))
            deal = deal_from_order(dealt, dealer, PATTERNS["4-4-5"])
            cases.append((tricks, gathered, deal, dealer, dealt if with_order else None))
        started = time.perf_counter()
        for tricks, gathered, deal, dealer, order_ in cases:
            stacking_test(tricks, gathered, None, deal, dealer, PATTERNS["4-4-5"], order_)
        per = (time.perf_counter() - started) / len(cases) * 1e6
        label = "with dealt_order" if with_order else "hands only"
        print(f"  {label}: {per:.1f} us per deal ({1e6 / per:,.0f} deals/s on one core)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
