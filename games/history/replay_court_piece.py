"""The replay of a Court Piece match (R9), in the shape of ``games.history.replay``.

Each deal becomes the data ``static/js/replay.js`` steps through, with what Court Piece adds to a
Hokm hand: the dealer and the caller (R9.3), the indicator of hidden trump and the moment of its
reveal (R9.14: ``hidden.reveal.at`` is how many cards of the deal were played before it), and under
Double Sir who collected the pile at which trick and how many tricks lay in it (R9.12).

A finished deal is fully visible (R9.15.1): every seat's cards, the indicator, every trick. Of a
deal still being played the data holds only what the engine's spectator view holds
(``court_piece_view(deal, None)``), to everyone, its players included: each seat's holding as a
count, no indicator before its reveal, no trump hidden under it, and under Double Sir no card of
a trick gone face down to the pile (its leader, winner and collector stay public).

A finished deal of a match dealt fairly carries its fair block and its caller's first five, as
``games.history.replay`` says (R8.4): the indicator, which its data keeps apart from the caller's
cards, is in ``hidden.card`` already.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.engine import (
    Card,
    CourtPieceDeal,
    DealSummary,
    Streak,
    Suit,
    court_piece_view,
    get_variant,
    sorted_hand,
    summarise,
)
from games.history.court_piece import WON, court_piece_settings, deal_kind, deal_kind_name
from games.history.replay import (
    HandLine,
    Replay,
    ReplaySeat,
    ReplaySide,
    faces_html,
    fair_blocks,
    fair_texts_add,
    replay_data,
    seats_and_sides,
    texts,
)
from games.models import Match, MatchSeat
from games.play.rendering import suit_face
from games.play.selectors import court_piece_options
from lib.numerals import localize_format

PLAYERS = 4


def court_piece_replay_build(
    *,
    match: Match,
    seats: Sequence[MatchSeat],
    deals: Sequence[CourtPieceDeal],
    revealed: bool,
    viewer: int = 0,
    you: int | None = None,
) -> Replay:
    """The replay of a Court Piece match from the engine states of its deals, in order
    (``games.play.selectors.court_piece_deals``). ``revealed``, ``viewer`` and ``you`` are as in
    ``games.history.replay.replay_build``: with ``revealed`` every deal is face up, without it
    the finished ones only (R9.15.1)."""
    variant = get_variant(match.variant)
    options = court_piece_options(match)
    replay_seats, sides = seats_and_sides(
        match=match, variant=variant, seats=seats, viewer=viewer, you=you
    )
    hands_data: list[dict[str, Any]] = []
    lines: list[HandLine] = []
    shown: set[Card] = set()
    streak, scores = Streak(), (0, 0)
    blocks = fair_blocks(match)
    for number, deal in enumerate(deals):
        before = list(scores)
        summary = None
        if deal.result is not None:
            summary = summarise(deal, streak, scores)  # R9.7 to R9.9, as the match counted it
            streak, scores = summary.streak, summary.scores
        if revealed or deal.is_over:
            hand = _deal_face_up(deal, replay_seats)
        else:
            hand = _deal_in_play(deal, replay_seats)
        hand |= {
            "number": number + 1,
            "hakem": deal.caller,
            "caller": deal.caller,
            "dealer": deal.dealer,
            "double_sir": options.double_sir,
            "score_before": before,
            "score_after": list(scores) if summary else None,
            "result": _result_data(summary, seats=replay_seats, sides=sides),
        }
        if number in blocks and deal.is_over and "cards" in hand:
            hand["fair"] = blocks[number]
            hand["dealt"] = {"first_five": [card.text for card in deal.first5]}
        hands_data.append(hand)
        shown.update(_named_cards(hand))
        lines.append(_hand_line(hand, replay_seats))
    sides = [replace(side, points=scores[side.index]) for side in sides]
    data = replay_data(
        match=match,
        variant=variant,
        seats=replay_seats,
        sides=sides,
        hands=hands_data,
        revealed=revealed,
        viewer=viewer,
        you=you,
    )
    data["court_piece"] = True
    data["text"] = texts() | _court_texts()
    fair_texts_add(data, match=match, court_piece=True)
    return Replay(
        data=data,
        faces=faces_html(shown),
        seats=replay_seats,
        sides=sides,
        hands=lines,
        viewer=viewer,
        revealed=revealed,
        shows_cards=any("cards" in hand for hand in hands_data),
        variant_title=str(match.get_variant_display()),
        court_piece=True,
        settings=court_piece_settings(match),
        double_sir=options.double_sir,
    )


def _deal_face_up(deal: CourtPieceDeal, seats: list[ReplaySeat]) -> dict[str, Any]:
    """Everything of a deal: R9.15.1 for a finished one, or any deal of a match that is over."""
    tricks: list[dict[str, Any]] = [
        {
            "leader": t.leader,
            "cards": [c.text for c in t.cards],
            "winner": t.winner,
            "collected_by": t.collected_by,
        }
        for t in deal.tricks
    ]
    if deal.current:
        tricks.append(_current_trick(deal.leader, [c.text for c in deal.current]))
    played_by: list[list[Card]] = [[] for _ in range(PLAYERS)]
    for trick in tricks:
        for order, text in enumerate(trick["cards"]):
            played_by[(trick["leader"] + order) % PLAYERS].append(Card.parse(text))
    # Each seat's cards when play began; the indicator lies apart until its reveal (R9.14.3).
    at_start = [played_by[s] + list(deal.holdings[s]) for s in range(PLAYERS)]
    indicator = deal.indicator
    if indicator is not None and indicator in at_start[deal.caller]:
        at_start[deal.caller].remove(indicator)
    hidden = None
    if deal.options.hidden:
        reveal = deal.reveal
        hidden = {
            "mode": deal.options.hidden_trump.value,
            "card": indicator.text if indicator else None,
            "reveal": _reveal_data(reveal.trick, reveal.seat, deal, tricks) if reveal else None,
        }
    _pile_up(tricks, seats)
    return {
        "trump": deal.trump.value if deal.trump else None,
        "started": deal.phase.value != "call",
        "counts": [len(cards) for cards in at_start],
        "tricks": tricks,
        "hidden": hidden,
        "cards": [[c.text for c in sorted_hand(cards, deal.trump)] for cards in at_start],
    }


def _deal_in_play(deal: CourtPieceDeal, seats: list[ReplaySeat]) -> dict[str, Any]:
    """A deal still being played, from the spectator's view alone (R8.3, R9.15.1)."""
    view = court_piece_view(deal, None)
    tricks: list[dict[str, Any]] = [
        {
            "leader": t["leader"],
            # A trick gone face down to the Double Sir pile: only that four cards were played.
            "cards": t["cards"] if t["cards"] is not None else [None] * PLAYERS,
            "winner": t["winner"],
            "collected_by": t["collected_by"],
        }
        for t in view["tricks"]
    ]
    if view["trick"]["cards"]:
        tricks.append(_current_trick(view["trick"]["leader"], view["trick"]["cards"]))
    played = [0] * PLAYERS
    for trick in tricks:
        for order in range(len(trick["cards"])):
            played[(trick["leader"] + order) % PLAYERS] += 1
    counts = [view["hand_counts"][s] + played[s] for s in range(PLAYERS)]
    hidden = None
    indicator = view["indicator"]
    if indicator is not None:
        reveal = indicator["reveal"]
        if reveal is not None:
            counts[deal.caller] -= 1  # the indicator joined his hand at the reveal (R9.14.3)
        hidden = {
            "mode": deal.options.hidden_trump.value,
            "card": indicator["card"] if reveal is not None else None,
            "reveal": _reveal_data(reveal["trick"], reveal["seat"], deal, tricks)
            if reveal
            else None,
        }
    _pile_up(tricks, seats)
    return {
        "trump": view["trump"],
        "started": view["phase"] != "call",
        "counts": counts,
        "tricks": tricks,
        "hidden": hidden,
    }


def _current_trick(leader: int, cards: list[str]) -> dict[str, Any]:
    return {"leader": leader, "cards": cards, "winner": None, "collected_by": None}


def _reveal_data(
    trick: int, seat: int, deal: CourtPieceDeal, tricks: list[dict[str, Any]]
) -> dict[str, Any]:
    """R9.14.2: the reveal comes before the card of ``seat`` in ``trick``; ``at`` counts the
    cards of the deal played before it, the position after which the replay shows it."""
    leader = tricks[trick]["leader"] if trick < len(tricks) else deal.leader
    return {
        "trick": trick,
        "seat": seat,
        "at": trick * PLAYERS + (seat - leader) % PLAYERS,
        "asked": seat != deal.caller,
    }


def _pile_up(tricks: list[dict[str, Any]], seats: list[ReplaySeat]) -> None:
    """Under Double Sir, each complete trick's pile after it and, where it collected, how many
    tricks its winner took (R9.12.2 to R9.12.4), said in a sentence and in a line of the list of
    collections. Who collected what is public, even while the pile lies face down (R9.15.1)."""
    pile = 0
    for number, trick in enumerate(tricks, start=1):
        if trick["winner"] is None:
            continue
        pile += 1
        collector = trick["collected_by"]
        if collector is not None:
            values = {"name": seats[collector].name, "count": pile, "trick": number}
            trick["collected"] = pile
            trick["collects_text"] = localize_format(
                ngettext(
                    "%(name)s collects the pile: %(count)d trick.",
                    "%(name)s collects the pile: %(count)d tricks.",
                    pile,
                ),
                values,
                names=("name",),
            )
            trick["collected_text"] = localize_format(
                ngettext(
                    "Trick %(trick)d: %(name)s collected %(count)d trick",
                    "Trick %(trick)d: %(name)s collected %(count)d tricks",
                    pile,
                ),
                values,
                names=("name",),
            )
            pile = 0
        trick["pile"] = pile


def _result_data(
    summary: DealSummary | None, *, seats: list[ReplaySeat], sides: list[ReplaySide]
) -> dict[str, Any] | None:
    if summary is None:
        return None
    result = summary.result
    kind = deal_kind(
        outcome=result.outcome.value, goon=result.goon, streak_court=summary.streak_court
    )
    assert kind is not None
    names = " & ".join(sides[result.winner].names)
    values = {"names": names, "courts": summary.courts}
    titles = {
        "court": _("Court!"),
        "goon": _("Goon court!"),
        "52-court": _("52-court!"),
        "seven": _("Seven in a row!"),
    }
    if summary.courts:
        text = localize_format(
            ngettext(
                "%(names)s won the deal: %(courts)d court",
                "%(names)s won the deal: %(courts)d courts",
                summary.courts,
            ),
            values,
            names=("names",),
        )
    else:
        text = _("%(names)s won the deal: no court") % values
    streak = summary.streak
    if streak.side is None:
        streak_text = _("No side holds a streak now.")
    else:
        streak_text = localize_format(
            ngettext(
                "Streak: %(names)s, %(count)d deal won in a row.",
                "Streak: %(names)s, %(count)d deals won in a row.",
                streak.count,
            ),
            {"names": " & ".join(sides[streak.side].names), "count": streak.count},
            names=("names",),
        )
    return {
        "winner": result.winner,
        "points": summary.courts,
        "courts": summary.courts,
        "kind": kind,
        "kind_name": deal_kind_name(kind),
        "kot": kind != WON,
        "hakem_kot": result.goon,
        "tricks_won": list(result.tricks_won),
        "collected": list(result.collected) if result.collected is not None else None,
        "side_tricks": list(result.side_tricks),
        "streak": {"side": streak.side, "count": streak.count},
        "streak_text": streak_text,
        "title": str(titles.get(kind, "")),
        "text": text,
    }


def _hand_line(hand: dict[str, Any], seats: list[ReplaySeat]) -> HandLine:
    result = hand["result"]
    hidden = hand["hidden"]
    trump = hand["trump"]
    return HandLine(
        number=hand["number"],
        hakem=seats[hand["caller"]].name,
        dealer=seats[hand["dealer"]].name,
        trump=suit_face(Suit(trump)) if trump else None,
        trump_hidden=trump is None and hidden is not None and hidden["card"] is None,
        tricks_played=sum(1 for t in hand["tricks"] if t["winner"] is not None),
        result=result["text"] if result else "",
        badge=result["kind_name"] if result and result["kind"] != WON else "",
        kot=bool(result and result["kot"]),
        hakem_kot=bool(result and result["hakem_kot"]),
        winner_side=result["winner"] if result else None,
        score_after=hand["score_after"],
    )


def _named_cards(hand: dict[str, Any]) -> Iterable[Card]:
    """Every card a deal's data names: the faces the page must be able to draw."""
    for trick in hand["tricks"]:
        yield from (Card.parse(text) for text in trick["cards"] if text is not None)
    for cards in hand.get("cards", ()):
        yield from (Card.parse(text) for text in cards)
    hidden = hand["hidden"]
    if hidden is not None and hidden["card"] is not None:
        yield Card.parse(hidden["card"])


def _court_texts() -> dict[str, str]:
    """The sentences of Court Piece that the script fills in (``%(name)s`` fields)."""
    return {
        "deal": _("Deal %(hand)s: %(dealer)s deals, %(hakem)s calls trump: %(trump)s."),
        "deal_no_trump": _("Deal %(hand)s: %(dealer)s deals, %(hakem)s is to call trump."),
        "deal_hidden": _(
            "Deal %(hand)s: %(dealer)s deals, %(hakem)s lays a card face down apart: its suit "
            "is trump, hidden until it is revealed."
        ),
        "play": _("Deal %(hand)s, trick %(trick)s, card %(card)s: %(name)s plays the %(label)s."),
        "lead": _("Deal %(hand)s, trick %(trick)s, card %(card)s: %(name)s leads the %(label)s."),
        "play_down": _(
            "Deal %(hand)s, trick %(trick)s, card %(card)s: %(name)s plays a card, face down "
            "in the pile now."
        ),
        "lead_down": _(
            "Deal %(hand)s, trick %(trick)s, card %(card)s: %(name)s leads a card, face down "
            "in the pile now."
        ),
        "hand_of": _("Deal %(hand)s of %(hands)s"),
        "not_started": _("The cards of this deal were never played."),
        "dealing": _("This deal is being dealt: no card is played yet."),
        "no_hands": _("No deal has been dealt."),
        "hakem_is": _("%(name)s calls trump"),
        "dealer_is": _("%(name)s deals"),
        "asks": _("%(name)s asks for trump: the indicator is the %(label)s, %(suit)s are trump."),
        "reveals": _("%(name)s reveals trump: the indicator is the %(label)s, %(suit)s are trump."),
        "never_revealed": _(
            "Trump was never revealed: the indicator was the %(label)s, and the deal was "
            "played without trumps."
        ),
        "indicator_down": _("hidden, face down"),
        "indicator_never": _("never revealed"),
        "asked_by": _("asked for by %(name)s at trick %(trick)s"),
        "revealed_by": _("revealed by %(name)s at trick %(trick)s"),
        "pile_none": _("The pile is empty."),
        "pile": _("Tricks in the pile: %(count)s"),
        "no_collection": _("Nothing collected yet."),
        "hidden_card": _("a card face down"),
    }
