"""The replay of a stored match, built from the engine's states of its hands (R8.3).

``replay_build`` turns every hand of a match into compact data that the replay page embeds once
(``json_script``) and ``static/js/replay.js`` steps through: for each hand its Hakem, dealer,
trump, the score before and after it, every trick with its leader and winner, and, only when the
match is over, each seat's cards when play began. A position is (hand, cards played in it); the
page derives what a position shows from these lists alone, so the whole match costs the two
queries of ``match_hand_states`` whatever the number of hands and tricks.

While a match is being played nothing hidden goes into the data, to anyone, its players included:
the tricks hold only the cards played, and each seat's holding is only a count (R8.3). The card
faces the page can draw are exactly the cards the data names.

A Court Piece match (R9) is built by ``games.history.replay_court_piece`` in the same shape, with
the seats, sides and data of the page made by the helpers here.

Fair deals (R8.4; RECORD.md, "Fair deals"): each *finished* hand of a match dealt fairly also
carries its public block (``fair``: commit, server seed, client seeds, as
``games.play.fairness.public`` shows a revealed one) and what its deal must reproduce that the
page's data does not hold already (``dealt``: the Hakem's or caller's first five, and the
dealer's five and the stock of hokm2-draw; never hokm2's unseen cards), for
``static/js/verify-deal.js`` to recompute the shuffle in the browser as
``scripts/verify_deal.py`` does. Nothing of the kind goes in for a hand not over
(``Hand.status``), whoever looks: its server seed is secret until it ends, and the next hand's
(``Match.next_fair``) is never read here. A match dealt fairly costs one query more, for its
hands' blocks.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _

from games.engine import (
    Card,
    HandState,
    Phase,
    Suit,
    Variant,
    discard_count,
    get_variant,
    sorted_hand,
)
from games.engine.record import hand_record
from games.history.court_piece import Setting
from games.models import Hand, Match, MatchSeat
from games.play import fairness
from games.play.rendering import (
    PETALS,
    SEAT_POSITIONS,
    card_face,
    seat_name,
    suit_face,
)
from lib.numerals import localize_format, localize_text


@dataclass(frozen=True)
class ReplaySeat:
    index: int
    name: str
    side: int
    position: str  # where the seat is drawn for the viewer: bottom, right, top or left
    is_computer: bool
    is_you: bool


@dataclass(frozen=True)
class ReplaySide:
    index: int
    names: list[str]
    seats: tuple[int, ...]
    yours: bool
    petals: range  # one per point of the target, when the target is shown as a flower
    points: int = 0  # after the last hand played


@dataclass(frozen=True)
class HandLine:
    """One hand in the list beside the table (rendered on the server, also without JavaScript)."""

    number: int  # 1-based, as in the position URL (#h3)
    hakem: str  # Court Piece: the caller (R9.3.1)
    trump: Any  # a games.play.rendering.SuitFace, or None before the call
    tricks_played: int
    result: str  # who won and how many points, empty while it is played
    kot: bool
    hakem_kot: bool
    winner_side: int | None
    score_after: list[int] | None
    #: Court Piece (R9): the dealer, and a deal's scoring kind named (court, goon court, ...).
    dealer: str = ""
    badge: str = ""
    #: Court Piece: trump is hidden and not yet revealed (R9.14), so not shown.
    trump_hidden: bool = False


@dataclass(frozen=True)
class Replay:
    """What the replay page needs: the data for its script, and what it renders itself."""

    data: dict[str, Any]
    faces: SafeString  # every card the data names, drawn once for the script to copy
    seats: list[ReplaySeat]
    sides: list[ReplaySide]
    hands: list[HandLine]
    viewer: int
    revealed: bool  # the match is over: every hand face up, the unfinished one too
    shows_cards: bool  # some hand is face up (a finished hand of a match still played, R8.3)
    variant_title: str
    #: Court Piece (R9): deals rather than hands, courts rather than points, its table settings
    #: (R9.11), and the pile of Double Sir (R9.12) to draw.
    court_piece: bool = False
    settings: list[Setting] = field(default_factory=list)
    double_sir: bool = False


def replay_build(
    *,
    match: Match,
    seats: Sequence[MatchSeat],
    states: Sequence[HandState],
    revealed: bool,
    viewer: int = 0,
    you: int | None = None,
) -> Replay:
    """The replay of ``match`` from the engine states of its hands, in order
    (``games.play.selectors.match_hand_states``).

    ``revealed`` (``games.play.access.match_revealed``) puts each seat's cards of every hand in the
    data; without it only those of the finished hands, and of the hand in play only the cards
    played (R8.3: finished hands become fully visible in history and replay). ``viewer`` is the
    seat drawn at the bottom of the table, ``you`` the signed-in player's seat, if any.
    """
    variant = get_variant(match.variant)
    replay_seats, sides = seats_and_sides(
        match=match, variant=variant, seats=seats, viewer=viewer, you=you
    )

    hands_data: list[dict[str, Any]] = []
    lines: list[HandLine] = []
    shown: set[Card] = set()
    scores = [0] * variant.sides
    blocks = fair_blocks(match)
    for number, state in enumerate(states):
        before = list(scores)
        result = state.result
        if result is not None:
            scores[result.winner] += result.points
        face_up = revealed or state.result is not None
        hand = _hand_data(state, variant=variant, revealed=face_up, sides=sides)
        hand["number"] = number + 1
        hand["score_before"] = before
        hand["score_after"] = list(scores) if result is not None else None
        if number in blocks and result is not None and "cards" in hand:
            hand["fair"] = blocks[number]
            hand["dealt"] = _dealt_data(state)
        hands_data.append(hand)
        shown.update(_named_cards(hand))
        lines.append(
            HandLine(
                number=number + 1,
                hakem=replay_seats[state.hakem].name,
                trump=suit_face(state.trump) if state.trump else None,
                tricks_played=len(state.tricks),
                result=hand["result"]["text"] if hand["result"] else "",
                kot=bool(result and result.kot),
                hakem_kot=bool(result and result.hakem_kot),
                winner_side=result.winner if result else None,
                score_after=hand["score_after"],
            )
        )

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
    data["text"] = texts()
    fair_texts_add(data, match=match)
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
    )


def fair_blocks(match: Match) -> dict[int, dict[str, Any]]:
    """The public fair block (R8.4) of every finished hand of ``match``, its server seed
    included, by the hand's number (from 0, the INDEX its shuffle was drawn for). A hand still
    being played has none here, even in a match that is over (abandoned): its seed stays secret.
    No query for a match dealt before fair deals (or imported): its flips have no block either."""
    if not match.draw_fair:
        return {}
    rows = (
        Hand.objects.filter(match=match, status=Hand.Status.FINISHED)
        .exclude(fair={})
        .values_list("number", "fair")
    )
    return {number: fairness.public(block, revealed=True) for number, block in rows}


def fair_texts_add(data: dict[str, Any], *, match: Match, court_piece: bool = False) -> None:
    """Mark the data of a match dealt fairly (``fair``) and give the sentences of its check
    (``text.verify``); a match dealt before fair deals gets neither, and no button."""
    data["fair"] = bool(match.draw_fair)
    if data["fair"]:
        data["text"]["verify"] = verify_texts(court_piece=court_piece)


def _dealt_data(state: HandState) -> dict[str, list[str]]:
    """What a finished hand's fair shuffle must deal beside each seat's cards, as its record
    holds it (``games.engine.record.hand_record``): the Hakem's first five; hokm2-draw's
    dealer's five and stock in order (its seats' ``cards`` are after the draw, so not what was
    dealt). Keys unlike the record's (``first_five``): a page holds no word that names a deal's
    secret parts (tests/leakcheck.py), even once they are public."""
    record = hand_record(state)
    dealt: dict[str, list[str]] = {"first_five": record["first5"]}
    # Not hokm2's unseen cards: nobody saw them, and no page names them while the match is
    # played (R8.3); the check of the deal goes without them (RECORD.md: "when present").
    if "draw" in record:
        dealt["dealer_five"] = record["draw"]["dealer5"]
        dealt["stock"] = record["draw"]["stock"]
    return dealt


def seats_and_sides(
    *,
    match: Match,
    variant: Variant,
    seats: Sequence[MatchSeat],
    viewer: int,
    you: int | None,
) -> tuple[list[ReplaySeat], list[ReplaySide]]:
    """The seats around the table as ``viewer`` sees it from the bottom, and the sides (R1.4)."""
    names = {seat.index: seat_name(seat) for seat in seats}
    computers = {seat.index for seat in seats if seat.computer_level}
    fallback = {
        index: localize_text(_("Seat %(number)s") % {"number": index + 1})
        for index in range(variant.players)
    }
    replay_seats = [
        ReplaySeat(
            index=index,
            name=names.get(index) or fallback[index],
            side=variant.side_of(index),
            position=SEAT_POSITIONS[variant.players][(index - viewer) % variant.players],
            is_computer=index in computers,
            is_you=index == you,
        )
        for index in range(variant.players)
    ]
    sides = [
        ReplaySide(
            index=side,
            names=[replay_seats[s].name for s in variant.seats_of(side)],
            seats=variant.seats_of(side),
            yours=you is not None and variant.side_of(you) == side,
            petals=range(match.target) if match.target in PETALS else range(0),
        )
        for side in range(variant.sides)
    ]
    return replay_seats, sides


def replay_data(
    *,
    match: Match,
    variant: Variant,
    seats: list[ReplaySeat],
    sides: list[ReplaySide],
    hands: list[dict[str, Any]],
    revealed: bool,
    viewer: int,
    you: int | None,
) -> dict[str, Any]:
    """The data the page embeds for its script, but for its sentences (``text``)."""
    return {
        "match": match.pk,
        "variant": variant.name,
        "players": variant.players,
        "sides": variant.sides,
        "target": match.target,
        "revealed": revealed,
        "viewer": viewer,
        "you": you,
        "seats": [{"name": s.name, "side": s.side, "computer": s.is_computer} for s in seats],
        # Where each seat sits, by its distance in play order from the viewer (R1.3).
        "layout": list(SEAT_POSITIONS[variant.players]),
        "hands": hands,
        # Said at the end of the last hand of a match that was won (R7.1).
        "match_result": _match_result(match, sides),
    }


def faces_html(cards: Iterable[Card]) -> SafeString:
    """One face per card, in the active language, for the script to copy."""
    language = get_language()
    return mark_safe("".join(_face_html(card.text, language) for card in sorted_hand(cards)))


def _hand_data(
    state: HandState, *, variant: Variant, revealed: bool, sides: list[ReplaySide]
) -> dict[str, Any]:
    n = variant.players
    tricks: list[dict[str, Any]] = [
        {"leader": t.leader, "cards": [c.text for c in t.cards], "winner": t.winner}
        for t in state.tricks
    ]
    if state.current:
        tricks.append(
            {"leader": state.leader, "cards": [c.text for c in state.current], "winner": None}
        )
    played_by: list[list[Card]] = [[] for _ in range(n)]
    for trick in tricks:
        for index, text in enumerate(trick["cards"]):
            played_by[(trick["leader"] + index) % n].append(Card.parse(text))
    # The cards each seat held when play began: those it played and those it still holds. Only
    # their number is public while the hand is played (R8.3).
    at_start = [played_by[s] + list(state.holdings[s]) for s in range(n)]
    data: dict[str, Any] = {
        "hakem": state.hakem,
        "dealer": state.dealer,
        "trump": state.trump.value if state.trump else None,
        "started": state.phase in (Phase.PLAY, Phase.DONE),
        "counts": [len(cards) for cards in at_start],
        "tricks": tricks,
        "result": _result_data(state, sides=sides),
    }
    if revealed:
        data["cards"] = [[c.text for c in sorted_hand(cards, state.trump)] for cards in at_start]
        if variant.has_draw:
            data["discards"] = _discards_data(state, variant=variant)
    return data


def _discards_data(state: HandState, *, variant: Variant) -> list[dict[str, list[str]]]:
    """R3.5 per seat: the cards put down from the first five, then those thrown in the draw."""
    out = []
    for seat in range(variant.players):
        pile = [c.text for c in state.discards[seat]]
        count = discard_count(state, seat)
        out.append({"discarded": pile[:count], "thrown": pile[count:]})
    return out


def _result_data(state: HandState, *, sides: list[ReplaySide]) -> dict[str, Any] | None:
    result = state.result
    if result is None:
        return None
    side = sides[result.winner]
    names = " & ".join(side.names)
    if result.hakem_kot:
        title = _("Hakem Kot!")
    elif result.kot:
        title = _("Kot!")
    else:
        title = ""
    text = localize_format(
        ngettext(
            "%(names)s won the hand: %(points)d point",
            "%(names)s won the hand: %(points)d points",
            result.points,
        ),
        {"names": names, "points": result.points},
        names=("names",),
    )
    return {
        "winner": result.winner,
        "points": result.points,
        "kot": result.kot,
        "hakem_kot": result.hakem_kot,
        "tricks_won": list(result.tricks_won),
        "title": str(title),
        "text": text,
    }


def _match_result(match: Match, sides: list[ReplaySide]) -> str | None:
    # A match a moderator voided has no result, as on its summary and in the history.
    if match.status != Match.Status.FINISHED or match.winner_side is None or match.voided:
        return None
    if not 0 <= match.winner_side < len(sides):
        return None
    names = " & ".join(sides[match.winner_side].names)
    return _("%(names)s won the match.") % {"names": names}


def _named_cards(hand: dict[str, Any]) -> Iterable[Card]:
    """Every card a hand's data names (the faces the page must be able to draw)."""
    for trick in hand["tricks"]:
        yield from (Card.parse(text) for text in trick["cards"])
    for cards in hand.get("cards", ()):
        yield from (Card.parse(text) for text in cards)
    for pile in hand.get("discards", ()):
        yield from (Card.parse(text) for text in pile["discarded"] + pile["thrown"])


@lru_cache(maxsize=1024)
def _face_html(text: str, language: str | None) -> str:
    """One card face (``games/_card.html``) in a language: the same few hundred strings every
    time, so they are drawn once per process rather than 52 template includes per page."""
    return render_to_string("games/_card.html", {"card": card_face(text)}).strip()


def texts() -> dict[str, str | dict[str, str]]:
    """The sentences the script fills in, translated here (with ``%(name)s`` fields), and the
    suits' names and titles by letter."""
    return {
        "deal": _("Hand %(hand)s: the deal. %(hakem)s is the Hakem, trump is %(trump)s."),
        "deal_no_trump": _("Hand %(hand)s: the deal. %(hakem)s is the Hakem."),
        "play": _("Hand %(hand)s, trick %(trick)s, card %(card)s: %(name)s plays the %(label)s."),
        "lead": _("Hand %(hand)s, trick %(trick)s, card %(card)s: %(name)s leads the %(label)s."),
        "led_short": _("%(name)s led"),
        "takes": _("%(name)s takes trick %(trick)s."),
        "takes_short": _("%(name)s takes the trick"),
        "hand_of": _("Hand %(hand)s of %(hands)s"),
        "at_deal": _("The deal"),
        "at_card": _("Trick %(trick)s, card %(card)s"),
        "at_trick": _("Trick %(trick)s complete"),
        "not_started": _("The cards of this hand were never played."),
        "dealing": _("This hand is being dealt: no card is played yet."),
        "no_hands": _("No hand has been dealt."),
        "in_play": _("The match goes on from here."),
        "cards_count": _("%(name)s holds %(count)s cards"),
        "no_trump": _("Not called yet"),
        "discarded": _("Put down from the first five"),
        "thrown": _("Thrown in the draw"),
        "hakem_is": _("%(name)s is the Hakem"),
        "suits": {suit.value: str(suit_face(suit).name) for suit in Suit},
        "suit_titles": {suit.value: str(suit_face(suit).title) for suit in Suit},
    }


def verify_texts(*, court_piece: bool = False) -> dict[str, str]:
    """The sentences of "Verify this deal" (``static/js/verify-deal.js``, R8.4): ``%(name)s``
    is a seat's name."""
    return {
        "checking": _("Checking the deal…"),
        "ok": _(
            "This deal is verified: the server seed revealed after the hand is the one committed "
            "to before the deal, and shuffling with it and the players' seeds deals exactly "
            "these cards."
        ),
        "bad": _("This deal does NOT match its fair shuffle:"),
        "format": _("The seeds are not written the way fair deals write them."),
        "commit": _("The server seed is not the one committed to before the deal."),
        "first_five": _("The first five cards of %(name)s are not those the shuffle deals."),
        "cards": _("The cards of %(name)s are not those the shuffle deals."),
        "every": _("The shuffle deals other cards to every player."),
        "stock": _("The stock is not the one the shuffle leaves."),
        "unseen": _("The cards nobody saw are not those the shuffle leaves."),
        "blind": _("The hidden trump card is not the one the shuffle picks."),
        "unreadable": _("The data of this deal could not be read."),
        "unsupported": _(
            "This browser cannot check the deal here: it needs the Web Crypto API, which works "
            "only over a secure connection."
        ),
        "later": _("This deal can be checked once it is over.")
        if court_piece
        else _("This hand's deal can be checked once the hand is over."),
    }
