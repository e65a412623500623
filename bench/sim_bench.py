"""Speed of the bots' simulator (``games.bots.sim``) against the engine, on one core.

    .venv/bin/python -m bench.sim_bench            # or: make bench-bots
    .venv/bin/python -m bench.sim_bench --seconds 5

For each variant it plays whole hands with the greedy policy to the hand's end (R5), three
ways, taking turns so that whatever else the shared machine does falls on all of them alike:

- ``engine``: ``games.engine.apply`` with ``greedy_action`` on each seat's ``view``, the trump
  call included: the way a live match is played, one hand at a time;
- ``sim x256`` and ``sim x4096``: the simulator playing batches of 256 and 4,096 deals at once
  (256 is about one round of the expert's search), dealing included.

It prints a Markdown table of hands per second (the median of the rounds) and the load average.
The simulator's results are the engine's, card for card (``tests/bots/test_search.py``).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from collections.abc import Callable

import numpy as np

from games.bots.greedy import greedy_action
from games.bots.sim import SUIT_INDEX, Batch, Rules, bit_of, playout
from games.engine import VARIANTS, Variant, apply, deal_deck, new_hand, view


def engine_hands(variant: Variant, count: int, first_seed: int) -> None:
    for seed in range(first_seed, first_seed + count):
        state = new_hand(variant, hakem=seed % variant.players, deck=deal_deck(variant, seed))
        while not state.is_over:
            state = apply(state, greedy_action(view(state, state.to_act)))


def sim_hands(variant: Variant, count: int, rng: np.random.Generator) -> None:
    """Deal ``count`` random hands and play them out: trump spades, seat 0 leads."""
    rules = Rules.of(variant)
    bits = np.array([bit_of(card) for card in variant.deck], dtype=np.uint64)
    order = np.argsort(rng.random((count, len(bits))), axis=1)
    shifted = np.left_shift(np.uint64(1), bits)[order]
    hands = np.zeros((count, variant.players), dtype=np.uint64)
    for seat in range(variant.players):
        part = shifted[:, seat * variant.hand_size : (seat + 1) * variant.hand_size]
        hands[:, seat] = np.bitwise_or.reduce(part, axis=1)
    batch = Batch.start(
        rules, hands, trump=SUIT_INDEX[variant.deck[0].suit], leader=0, hakem_side=0
    )
    playout(batch)


def rate(run: Callable[[], None], hands: int) -> float:
    started = time.perf_counter()
    run()
    return hands / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per variant (default 3)")
    args = parser.parse_args()
    rng = np.random.default_rng(1)
    print(f"python {platform.python_version()}, numpy {np.__version__}, one core")
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}\n")
    print(
        "| variant | engine (hands/s) | sim x256 (hands/s) | sim x4096 (hands/s) | x4096 / engine |"
    )
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, variant in VARIANTS.items():
        if variant.has_draw:
            continue  # after the draw hokm2-draw plays exactly as hokm2
        results: dict[str, list[float]] = {"engine": [], "256": [], "4096": []}
        deadline = time.perf_counter() + args.seconds
        seed = 0
        while time.perf_counter() < deadline or len(results["engine"]) < 3:
            results["engine"].append(rate(lambda s=seed, v=variant: engine_hands(v, 20, s), 20))
            results["256"].append(rate(lambda v=variant: sim_hands(v, 256, rng), 256))
            results["4096"].append(rate(lambda v=variant: sim_hands(v, 4096, rng), 4096))
            seed += 20
        engine, small, large = (
            statistics.median(results[key]) for key in ("engine", "256", "4096")
        )
        print(f"| {name} | {engine:,.0f} | {small:,.0f} | {large:,.0f} | {large / engine:,.0f}x |")
    print(f"\nload average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
