"""How many points the expert would gain by knowing some hidden hands: a measurement, not a player.

The expert plays a hokm4 duel against greedy baselines (``games.bots.duel``, the same deals as
``manage.py bot_duel``), but in the card play each expert seat is told the cards that some other
seats hold (its partner, its two opponents, or all three), as if the deal it samples had those
hands fixed. That is peeking, and it exists only here, by patching the search's knowledge in this
process: nothing of it reaches the site or ``games.bots``. The figures say where the expert's
missing strength lies (docs/bots.md, "What was tried to reach 78%").

    .venv/bin/python scripts/bot_information_value.py --reveal partner --pairs 100 --seed 1

It runs in one process (the patch does not reach the pool of ``--jobs``); run two commands side by
side, one per core, to compare.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "hokm_site.settings")

from games.bots import (
    duel,  # noqa: E402  (after the path is set)
    sampling,  # noqa: E402
)
from games.bots.sim import mask_of  # noqa: E402
from games.engine import Card, HandState  # noqa: E402

#: Whose hands each choice reveals, as seat offsets from the expert's own seat (hokm4).
REVEALED = {"none": (), "partner": (2,), "opponents": (1, 3), "all": (1, 2, 3)}
_KEY = "_revealed_for_measurement"


def patch(reveal: str) -> None:
    """Make the duel's views carry the revealed hands during the card play, and the search's
    knowledge bar every other unseen card from those seats (the way a void bars a suit)."""
    offsets = REVEALED[reveal]
    plain_view = duel.view
    plain_knowledge = sampling.Knowledge.from_view.__func__

    def view(state: HandState, seat: int) -> dict[str, Any]:
        seen = plain_view(state, seat)
        if not offsets or state.phase.name != "PLAY":
            return seen
        others = {(seat + k) % 4: plain_view(state, (seat + k) % 4)["hand"] for k in offsets}
        return {**seen, _KEY: others}

    def from_view(cls, seen):  # type: ignore[no-untyped-def]
        knowledge = plain_knowledge(cls, seen)
        revealed = seen.get(_KEY)
        if not revealed:
            return knowledge
        voids = list(knowledge.voids)
        for seat, hand in revealed.items():
            voids[int(seat)] |= knowledge.unknown & ~mask_of(Card.parse(text) for text in hand)
        return replace(knowledge, voids=tuple(voids))

    duel.view = view
    sampling.Knowledge.from_view = classmethod(from_view)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reveal", choices=sorted(REVEALED), default="none")
    parser.add_argument("--pairs", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    import django

    django.setup()
    patch(args.reveal)
    config = duel.DuelConfig(a="expert", b="greedy", pairs=args.pairs, seed=args.seed, jobs=1)
    hands = duel.run_duel(config).report["hands"]
    interval = hands["ci95"]  # None below two deal pairs
    print(
        json.dumps(
            {
                "reveal": args.reveal,
                "pairs": args.pairs,
                "seed": args.seed,
                "expert_hand_win_rate": hands["a_win_rate"],
                "ci95": interval and [round(bound, 4) for bound in interval],
            }
        )
    )


if __name__ == "__main__":
    main()
