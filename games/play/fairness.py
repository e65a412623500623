"""Fair deals on the live site (RULES.md R8.4; RECORD.md, "Fair deals"; docs/fairness.md).

Every shuffle (the flips of a new match, each hand's deal) comes from a fresh 32-byte server seed
drawn from the operating system's secure source and from the seated players' client seeds. The
shuffle itself is the engine's (``games.engine.fair``); this module keeps the blocks the site
stores and publishes:

* a *block* is ``{"commit", "server_seed", "client_seeds"}`` (seed as 64 hex characters, one
  client seed per seat, "" for a computer or a client that did not answer);
* :func:`public` is what anyone may see of a block: always its commitment and client seeds, its
  server seed only once revealed (the hand over; the flips once the first hand is dealt).

The next hand's block is drawn when a hand ends and committed to in that hand's last event
(``next_commit``); the seated people's clients answer with their seeds (``client_seed``,
docs/protocol.md) during the pause before the deal, and the deal takes what came.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from games.engine import (
    CourtPieceMatch,
    GameState,
    MatchState,
    check_client_seed,
    commit_of,
    deal_hand,
    fair_dealer_draw,
    fair_hakem_draw,
    fair_new_deal,
    fair_new_hand,
    get_variant,
    new_server_seed,
    seed_from_hex,
    seed_hex,
)
from games.engine.court_piece.match import next_deal
from games.engine.match import next_hand


def block_new(players: int, client_seeds: Sequence[str] | None = None) -> dict[str, Any]:
    """A fresh shuffle's block: a new server seed, its commitment, the client seeds so far."""
    if isinstance(client_seeds, str):
        raise ValueError("client_seeds is a list of seeds, one per seat, not one string")
    seed = new_server_seed()
    seeds = [check_client_seed(s) for s in client_seeds] if client_seeds else [""] * players
    if len(seeds) != players:
        raise ValueError(f"one client seed per seat: {players}, not {len(seeds)}")
    return {"commit": commit_of(seed), "server_seed": seed_hex(seed), "client_seeds": seeds}


def public(block: dict[str, Any], *, revealed: bool) -> dict[str, Any]:
    """What anyone may see of ``block``: the seed only when ``revealed``."""
    if not block:
        return {}
    shown = {"commit": block["commit"], "client_seeds": list(block["client_seeds"])}
    if revealed:
        shown["server_seed"] = block["server_seed"]
    return shown


def seal_new(players: int) -> dict[str, Any]:
    """A new match's first shuffles, sealed before anyone is dealt: ``{"draw", "hand"}`` (the
    flips' block and hand 0's), no client seed yet."""
    return {"draw": block_new(players), "hand": block_new(players)}


def seal_commit(seal: dict[str, Any]) -> str:
    """The commitment a page shows for ``seal`` and posts back with its seed: the first hand's."""
    return str(seal.get("hand", {}).get("commit", "")) if seal else ""


def seal_public(seal: dict[str, Any]) -> dict[str, str]:
    """What anyone may see of a seal before the match: the two commitments."""
    if not seal:
        return {}
    return {"draw_commit": seal["draw"]["commit"], "commit": seal["hand"]["commit"]}


def seal_seated(seal: dict[str, Any], client_seeds: Sequence[str]) -> dict[str, Any]:
    """``seal`` with each seat's client seed in both of its shuffles (checked: ``FairError``):
    one per seat of the game that uses it, whatever the number it was sealed with."""
    seeds = [check_client_seed(s) for s in client_seeds]
    return {name: {**seal[name], "client_seeds": seeds} for name in ("draw", "hand")}


def seeds_of(block: dict[str, Any]) -> tuple[bytes, list[str]]:
    return seed_from_hex(block["server_seed"]), list(block["client_seeds"])


def client_seed_set(block: dict[str, Any], *, seat: int, seed: str) -> dict[str, Any]:
    """``block`` with the seat's client seed (checked: raises ``FairError``, a ValueError)."""
    seeds = list(block["client_seeds"])
    seeds[seat] = check_client_seed(seed)
    return {**block, "client_seeds": seeds}


def deal_next(state: GameState, block: dict[str, Any], *, hand_index: int) -> GameState:
    """The next hand (R6) or deal (R9.9) of ``state``, dealt from the fair shuffle of ``block``."""
    server_seed, client_seeds = seeds_of(block)
    # The shuffled deck does not depend on who is dealt first (``lead``): the engine deals it from
    # the Hakem R6 names, or from the caller R9.9 names, in RECORD.md's order.
    if isinstance(state, CourtPieceMatch):
        dealt = deal_hand(
            get_variant("court-piece"), server_seed, client_seeds, hand_index=hand_index, lead=0
        )
        return next_deal(state, deck=dealt.deck, blind_pick=dealt.blind_pick or 0)
    assert isinstance(state, MatchState)
    dealt = deal_hand(state.variant, server_seed, client_seeds, hand_index=hand_index, lead=0)
    return next_hand(state, deck=dealt.deck)


def round_over(state: GameState) -> bool:
    """Whether the current hand or deal is over (its seed may be revealed)."""
    if isinstance(state, CourtPieceMatch):
        return state.deal.is_over
    assert isinstance(state, MatchState)
    return state.hand.is_over


def seeds_reseated(block: dict[str, Any], seating: Sequence[int]) -> dict[str, Any]:
    """``block`` with its client seeds in the seats of R2.3's re-seating (``seating[new]`` is the
    seat a player had at the flips): a seat's seed follows its player."""
    seeds = block["client_seeds"]
    return {**block, "client_seeds": [seeds[old] for old in seating]}


def first_hand(
    state: MatchState, *, draw: dict[str, Any], hand: dict[str, Any], partner_draw: bool
) -> MatchState:
    """A new Hokm match's flips (R2.2, R2.4; R2.3 goes on from them) and hand 0, from their
    fair shuffles instead of the match's seed."""
    variant = state.variant
    flips = fair_hakem_draw(variant, *seeds_of(draw), partner_draw=partner_draw)
    first = fair_new_hand(variant, *seeds_of(hand), hand_index=0, hakem=flips.hakem)
    return replace(state, draw=flips, hand=first, hand_seed=None)


def first_deal(
    state: CourtPieceMatch, *, draw: dict[str, Any], hand: dict[str, Any]
) -> CourtPieceMatch:
    """A new Court Piece match's flips for the dealer (R9.2.1, R9.16) and deal 0, fair."""
    options = state.options
    flips = fair_dealer_draw(*seeds_of(draw), ace_caller=options.ace_caller)
    first = fair_new_deal(options, *seeds_of(hand), hand_index=0, dealer=flips.dealer)
    return replace(state, draw=flips, deal=first, deal_seed=None)
