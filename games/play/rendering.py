"""The live table as HTML: one fragment per seat, rendered from the engine's view alone (R8.3).

``render_table`` turns ``games.engine.match_view(state, seat)`` into the ``#table`` fragment that
the match page embeds at first load and the match consumer sends after every event (htmx swaps it
out of band by its id). Nothing else of the game state is read here: the seats give only names,
the match only its id, version and status, so no card a seat may not see can reach its HTML.

Seats are laid out around the table relative to the viewer, who sits at the bottom (a spectator
watches from seat 0's chair). Play goes anticlockwise (R1.3), so the next seat in play order is
on the viewer's right.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.functional import Promise
from django.utils.safestring import mark_safe
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext, pgettext_lazy

from accounts.invisible_characters import INVISIBLE_CHARACTERS_MESSAGE
from games.engine import (
    Card,
    GameState,
    Suit,
    Variant,
    game_view,
    get_variant,
    parse_cards,
    sorted_hand,
)
from games.lobby.selectors import computer_player_name
from games.models import ChatMessage, Match, MatchSeat
from games.play.chat import QUICK_PHRASES, phrase_text
from games.play.presence import Presence
from games.play.rematch import rematch_offer
from games.play.services import match_clock
from games.ratings.selectors import RatingMove, rating_moves, ratings_for

#: Where each seat sits, by its distance in play order from the viewer (R1.3: anticlockwise).
SEAT_POSITIONS: dict[int, tuple[str, ...]] = {
    4: ("bottom", "right", "top", "left"),
    3: ("bottom", "right", "left"),
    2: ("bottom", "top"),
}

_BETWEEN_TAGS = re.compile(r">\s+<")

#: Targets shown as a flower of petals as well as a number (R7.2: seven petals is the custom).
PETALS = range(3, 13)

_RANK_SHOWN = {"T": "10"}
_RANK_NAMES: dict[str, Promise] = {
    "A": _("ace"),
    "K": _("king"),
    "Q": _("queen"),
    "J": _("jack"),
}
_SUIT_NAMES: dict[Suit, Promise] = {
    Suit.SPADES: _("spades"),
    Suit.HEARTS: _("hearts"),
    Suit.DIAMONDS: _("diamonds"),
    Suit.CLUBS: _("clubs"),
}
_SUIT_TITLES: dict[Suit, Promise] = {
    Suit.SPADES: pgettext_lazy("suit name on a button", "Spades"),
    Suit.HEARTS: pgettext_lazy("suit name on a button", "Hearts"),
    Suit.DIAMONDS: pgettext_lazy("suit name on a button", "Diamonds"),
    Suit.CLUBS: pgettext_lazy("suit name on a button", "Clubs"),
}
_VARIANT_TITLES: dict[str, Promise] = {
    "hokm4": _("Four players"),
    "hokm3": _("Three players"),
    "hokm2": _("Two players"),
    "hokm2-draw": _("Two players with the draw"),
    "court-piece": _("Court Piece"),
}
#: Suits in the order the trump buttons show them: alternating colours, as a hand is sorted.
_CALL_ORDER = (Suit.SPADES, Suit.HEARTS, Suit.CLUBS, Suit.DIAMONDS)


@dataclass(frozen=True)
class SuitFace:
    code: str
    symbol: str
    red: bool
    name: Promise
    title: Promise


@dataclass(frozen=True)
class CardFace:
    """What a card's markup needs: its text, rank as printed, suit, colour and spoken name."""

    text: str
    rank: str
    suit: SuitFace
    court: bool
    label: str


@dataclass(frozen=True)
class HandCard:
    card: CardFace
    dealt: int
    sorted: int
    playable: bool
    dimmed: bool


@dataclass(frozen=True)
class SeatInfo:
    index: int
    name: str
    position: str
    side: int
    is_you: bool
    is_hakem: bool
    is_dealer: bool
    on_turn: bool
    is_computer: bool
    presence: str  # computer, connected, away or gone (games.play.presence)
    stand_in: bool  # a person's seat that the computer plays for now (away or left, R8.1)
    has_clock: bool  # the turn clock below the seat runs for it
    hand_count: int
    tricks_won: int
    discard_count: int | None
    backs: range  # one per card shown face down
    collected: int | None = None  # Court Piece's Double Sir: tricks collected (R9.12)
    rating: str = ""  # a rated match's player: his rating in the variant ("1500?" provisional)


@dataclass(frozen=True)
class SeatRatingMove:
    """One player's rating change at the end of a rated match, for the end banner."""

    seat: SeatInfo
    move: RatingMove


@dataclass(frozen=True)
class TrickCard:
    card: CardFace
    seat: SeatInfo
    led: bool
    winner: bool


@dataclass(frozen=True)
class SideInfo:
    index: int
    names: list[str]
    seats: list[SeatInfo]  # the side's members, for the score panel's names
    points: int
    tricks: int
    yours: bool
    winner: bool
    petals: list[bool]


@dataclass(frozen=True)
class Banner:
    title: str
    detail: str
    match_title: str  # empty while the match goes on
    yours: bool | None  # None for a spectator
    kot: bool
    hakem_kot: bool
    points: int
    tricks: list[int]
    #: Why a hand went to whom it did when that is not the most tricks (hokm3's tie, R5.3.3).
    note: str = ""
    #: Court Piece (R9.6 to R9.8): won, court, 52-court; goon; the seventh deal in a row.
    outcome: str = ""
    goon: bool = False
    streak_court: bool = False


def suit_face(suit: Suit) -> SuitFace:
    return SuitFace(
        code=suit.value,
        symbol=suit.symbol,
        red=suit in (Suit.HEARTS, Suit.DIAMONDS),
        name=_SUIT_NAMES[suit],
        title=_SUIT_TITLES[suit],
    )


def card_face(card: Card | str) -> CardFace:
    """The face of one card, e.g. ``card_face("AS").label == "ace of spades"``."""
    if isinstance(card, str):
        card = Card.parse(card)
    letter = card.text[0]
    rank_name = _RANK_NAMES.get(letter) or _RANK_SHOWN.get(letter, letter)
    suit = suit_face(card.suit)
    return CardFace(
        text=card.text,
        rank=_RANK_SHOWN.get(letter, letter),
        suit=suit,
        court=letter in "JQK",
        label=_("%(rank)s of %(suit)s") % {"rank": rank_name, "suit": suit.name},
    )


def seat_name(seat: MatchSeat) -> str:
    """The name a match seat is shown under, in the active language.

    A computer player's name is made again from its level and seat: the stored one is in the
    language of whoever opened the table, and after a draw for partners (R2.3) its seat number
    is the one from before the re-seating. A person's name is the one stored when the match began.
    """
    if seat.computer_level is not None:
        return computer_player_name(level=seat.computer_level, index=seat.index)
    return seat.name


def render_table(
    *,
    match: Match,
    seats: list[MatchSeat],
    state: GameState,
    seat: int | None,
    flash: str | None = None,
    presence: Presence | None = None,
) -> str:
    """The ``#table`` fragment as ``seat`` sees it (``None``: a spectator, who sees no hand).

    The caller activates the viewer's language; the fragment carries ``hx-swap-oob`` so htmx
    swaps it in place whether it arrives over the socket or sits in the page.
    """
    html = render_to_string(
        "games/_table.html",
        table_context(
            match=match, seats=seats, state=state, seat=seat, flash=flash, presence=presence
        ),
    )
    # The fragment goes to every seat after every move: drop the templates' indentation (a
    # browser collapses whitespace between tags to one space anyway, so nothing looks different).
    return mark_safe(_BETWEEN_TAGS.sub("> <", html.strip()))


#: What the page says when a message is refused, by error code (docs/protocol.md), in the page's
#: language; the engine's own reasons are English, for programs and logs.
_FLASH_MESSAGES: dict[str, Promise] = {
    "not_your_turn": _("It is not your turn."),
    "wrong_phase": _("That cannot be done now."),
    "hand_over": _("This hand is over."),
    "match_over": _("The match is over."),
    "card_not_held": _("You do not hold that card."),
    # No rule number here: it means nothing to a player (tests and logs cite the rules).
    "must_follow_suit": _("You must follow suit: play a card of the suit led."),
    "invalid_discard": _("Choose the right number of cards from your first five."),
    "invalid_trump": _("That is not a suit you can call."),
    "invalid_indicator": _("Lay one of your first five cards face down."),
    "reveal_not_allowed": _(
        "You can ask for trump only on your turn, when you cannot follow suit."
    ),
    "must_trump": _("You asked for trump: play a trump if you hold one."),
    "indicator_hidden": _("Your face-down card stays hidden until trump is revealed."),
    "illegal": _("That is not a move of this game."),
    "stale_version": _("The table changed before your move arrived: look again and choose."),
    "rate_limited": _("Too many messages: slow down."),
    "server_error": _("The server could not take that. Try again."),
    "not_seated": _("Spectators cannot play."),
    "forbidden": _("This table does not allow spectators."),
    "login_required": _("Sign in to watch or play this match."),
    "not_found": _("There is no such match."),
}


def flash_text(code: str, message: str) -> str:
    """The words the page shows for a refusal with this code (``message`` for an unknown one)."""
    text = _FLASH_MESSAGES.get(code)
    return str(text) if text is not None else message


def render_flash(message: str) -> str:
    """The ``#flash`` fragment with an error for the player (escaped like all text)."""
    return render_to_string("games/_match_flash.html", {"flash": message, "oob": True})


def table_context(
    *,
    match: Match,
    seats: list[MatchSeat],
    state: GameState,
    seat: int | None,
    flash: str | None = None,
    presence: Presence | None = None,
) -> dict[str, Any]:
    """Everything ``games/_table.html`` shows, built from ``game_view(state, seat)`` only, and
    of the seats their names, who is there (``presence``) and the running turn clock."""
    data = game_view(state, seat)
    court_view = data if data["variant"] == "court-piece" else None
    if court_view is not None:
        data = _court_piece_shaped(court_view)
    if presence is None:
        presence = Presence(seats=frozenset(), spectators=0)  # nobody known to be there
    clock = _clock_context(match_clock(match=match, state=state, seats=seats), match)
    rows = {s.index: s for s in seats}
    hand = data["hand"]
    variant = get_variant(data["variant"])
    players = hand["players"]
    viewer = seat if seat is not None else 0
    names = {s.index: seat_name(s) for s in seats}
    computers = {s.index for s in seats if s.computer_level}
    to_act = hand["to_act"]
    draw = hand.get("draw")
    trump = Suit(hand["trump"]) if hand["trump"] else None
    collected = hand.get("collected")
    # Rated matches only (the one query they cost): a casual table has no rating at stake.
    changes = (
        rating_moves(match_ids=[match.pk]).get(match.pk, {}) if match.rated and data["over"] else {}
    )
    ratings = (
        ratings_for(user_ids=[s.user_id for s in seats], variant=match.variant)
        if match.rated and not changes
        else {}
    )
    rating_texts = {
        s.index: (
            # The plates keep the rating each player brought to the match; the banner has the new.
            changes[s.index].before_text if s.index in changes else str(ratings[s.user_id])
        )
        for s in seats
        if s.user_id is not None and (s.index in changes or s.user_id in ratings)
    }

    seat_infos = []
    for index in range(players):
        position = SEAT_POSITIONS[players][(index - viewer) % players]
        count = hand["hand_counts"][index]
        fallback = _("Seat %(number)s") % {"number": index + 1}
        seat_infos.append(
            SeatInfo(
                index=index,
                name=names.get(index, fallback),
                position=position,
                side=variant.side_of(index),
                is_you=index == seat,
                is_hakem=index == hand["hakem"],
                is_dealer=index == hand["dealer"],
                on_turn=index == to_act and not data["over"],
                is_computer=index in computers,
                presence=presence.of(rows[index]) if index in rows else "gone",
                stand_in=index in rows
                and index not in computers
                and rows[index].status != MatchSeat.Status.PLAYING,
                has_clock=clock is not None and clock["seat"] == index,
                hand_count=count,
                tricks_won=hand["tricks_won"][index],
                discard_count=draw["discard_counts"][index] if draw else None,
                # The viewer's own cards are shown face up; everyone else's as backs.
                backs=range(0 if index == seat else count),
                collected=collected[index] if collected is not None else None,
                rating=rating_texts.get(index, ""),
            )
        )

    legal = hand.get("legal", [])
    # Under Court Piece's hidden trump the caller's first move is a card too: the indicator he
    # lays face down (R9.14.1), chosen in his hand like a card he plays.
    hand_kind = "choose_indicator" if _has(legal, "choose_indicator") else "play_card"
    playable = {a["card"] for a in legal if a["type"] == hand_kind}
    on_turn = seat is not None and to_act == seat and not data["over"]
    hand_cards = _hand_cards(hand.get("hand", []), trump=trump, playable=playable, on_turn=on_turn)
    call_suits = [suit_face(s) for s in _CALL_ORDER] if _has(legal, "call_trump") else []
    discards = [a for a in legal if a["type"] == "discard"]
    keep_or_throw = _has(legal, "keep_or_throw")

    tricks = hand["tricks"]
    current = _trick_cards(hand["trick"]["leader"], hand["trick"]["cards"], None, seat_infos)
    last = tricks[-1] if tricks else None
    # Under Double Sir a finished trick lies face down in the pile (R9.15.1): no cards to show.
    last_cards = (
        _trick_cards(last["leader"], last["cards"], last["winner"], seat_infos)
        if last and last["cards"]
        else []
    )
    # A trick just completed stays in the middle until the next card is led, so everyone sees
    # the card that closed it and who took it.
    center_done = not current and bool(last_cards)
    center = last_cards if center_done else current

    sides = _sides(data, hand, variant=variant, seat=seat, seat_infos=seat_infos)
    if court_view is not None:
        banner = _court_banner(court_view, sides=sides, seat=seat)
        court = _court_context(court_view, seat=seat, seat_infos=seat_infos, sides=sides)
    else:
        banner = _banner(data, hand, sides=sides, seat=seat)
        court = None

    return {
        "match_id": match.pk,
        "version": match.version,
        "variant": variant.name,
        "variant_title": _VARIANT_TITLES.get(variant.name, variant.title),
        "players": players,
        "target": data["target"],
        "hand_number": data["hand_number"] + 1,
        "phase": hand["phase"],
        "over": data["over"],
        "seat": seat,
        "spectator": seat is None,
        "you": seat_infos[seat] if seat is not None else None,
        "others": [s for s in seat_infos if s.position != "bottom"],
        "bottom": seat_infos[viewer],
        "to_act": seat_infos[to_act] if to_act is not None else None,
        "on_turn": on_turn,
        "hakem": seat_infos[hand["hakem"]],
        "trump": suit_face(trump) if trump else None,
        "hand_cards": hand_cards,
        "hand_kind": hand_kind,
        "court": court,
        "call_suits": call_suits,
        "discard_count": len(discards[0]["cards"]) if discards else 0,
        "keep_or_throw": keep_or_throw,
        "draw": _draw_context(draw) if draw else None,
        # The public flips that chose the first Hakem (R2.2 to R2.4), shown during hand 1.
        "hakem_draw": _hakem_draw_context(data["draw"], seat_infos)
        if data["draw"] and data["hand_number"] == 0
        else None,
        "center": center,
        "center_done": center_done,
        "center_winner": seat_infos[last["winner"]] if center_done and last else None,
        "last_trick": last_cards,
        "last_trick_winner": seat_infos[last["winner"]] if last_cards and last else None,
        "sides": sides,
        "team_play": variant.sides != players,
        "banner": banner,
        # The next hand's shuffle, committed to while its deal waits (R8.4): shown to everyone,
        # and a seated player's page answers it with its client seed (static/js/match.js).
        "next_commit": (match.next_fair or {}).get("commit")
        if banner and not data["over"]
        else None,
        # The hand just ended has its seed revealed (R8.4): the replay recomputes its deal.
        "fair_verify": bool(banner and match.draw_fair),
        "rated": match.rated,
        "rating_moves": [
            SeatRatingMove(seat=seat_infos[index], move=move)
            for index, move in sorted(changes.items())
        ],
        "flash": flash,
        # The turn clock (R8.1): the page counts down to the deadline; None when none runs.
        "clock": clock,
        "spectators": presence.spectators,
        # The viewer's own seat is played by the computer (away or left): offer it back.
        "stand_in": seat is not None and seat_infos[seat].stand_in and not data["over"],
        "your_status": rows[seat].status if seat is not None and seat in rows else None,
        "can_leave": seat is not None and not data["over"] and match.status == "playing",
        "play_again": data["over"] and play_again(match=match, seats=seats, seat=seat) is not None,
        "rematch": rematch_offer(match=match, seats=seats, seat=seat) if data["over"] else None,
    }


# -- Court Piece (R9) ----------------------------------------------------------------------------


def _court_piece_shaped(data: dict[str, Any]) -> dict[str, Any]:
    """A court-piece match view in the shape the table shares with Hokm: the deal as the hand,
    its caller where Hokm has its Hakem (R9.3.1), courts as the side's points."""
    deal = data["deal"]
    hand = dict(deal, players=4, hakem=deal["caller"])
    return {
        "variant": data["variant"],
        "target": data["target"],
        "scores": data["scores"],
        "winner": data["winner"],
        "over": data["over"],
        "hand_number": data["deal_number"],
        "draw": None,  # the dealer draw is Court Piece's own (``_court_context``)
        "hand": hand,
    }


def _court_chase(deal: dict[str, Any]) -> bool:
    """R9.6.1: one side took the first 7 tricks and plays on, for a court or the 52-court."""
    tricks = deal["tricks"]
    if deal["result"] is not None or deal["options"]["double_sir"] or len(tricks) < 7:
        return False
    return len({t["winner"] % 2 for t in tricks[:7]}) == 1


def _court_context(
    data: dict[str, Any], *, seat: int | None, seat_infos: list[SeatInfo], sides: list[SideInfo]
) -> dict[str, Any]:
    """What only a Court Piece table shows: the indicator and the buttons to ask for trump or
    reveal it (R9.14), the Double Sir pile (R9.12), the chase (R9.6.1), the streak (R9.8)."""
    deal = data["deal"]
    options = deal["options"]
    legal = deal.get("legal", [])
    caller = deal["caller"]
    indicator = deal["indicator"]
    indicator_context = None
    if indicator is not None and indicator["laid"]:
        reveal = indicator["reveal"]
        indicator_context = {
            "card": card_face(indicator["card"]) if indicator["card"] else None,
            "revealed": reveal is not None,
            "by": seat_infos[reveal["seat"]] if reveal else None,
            "yours": seat == caller,
        }
    streak = data["streak"]
    by_index = {side.index: side for side in sides}
    draw = data["draw"]
    return {
        "options": options,
        "indicator": indicator_context,
        "hidden": options["hidden_trump"] != "off",
        "blind": options["hidden_trump"] == "blind",
        "can_ask": _has(legal, "reveal_trump") and seat != caller,
        "can_reveal": _has(legal, "reveal_trump") and seat == caller,
        "choosing": _has(legal, "choose_indicator"),
        "pile": deal["pile"],
        "double_sir": options["double_sir"],
        "chase": _court_chase(deal),
        "streak": {"count": streak["count"], "side": by_index[streak["side"]]}
        if streak["count"]
        else None,
        "max_deals": data["max_deals"],
        "dealer_draw": _dealer_draw_context(draw, seat_infos, options["ace_caller"])
        if draw and data["deal_number"] == 0
        else None,
        "caller": seat_infos[caller],
    }


def _dealer_draw_context(
    draw: dict[str, Any], seat_infos: list[SeatInfo], ace_caller: str | None
) -> dict[str, Any]:
    """R9.2.1 / R9.16.1: one card face up to each seat in turn up to the first ace (or the ace
    of the named suit); its receiver deals, or with an ace caller calls."""
    first, cards = draw["first_seat"], draw["cards"]
    receiver = seat_infos[(first + len(cards) - 1) % 4]
    return {
        "flips": [
            DrawFlip(
                card=card_face(text),
                seat=seat_infos[(first + index) % 4],
                decisive=index == len(cards) - 1,
            )
            for index, text in enumerate(cards)
        ],
        "receiver": receiver,
        "ace_caller": suit_face(Suit(ace_caller)) if ace_caller else None,
    }


def _court_banner(
    data: dict[str, Any], *, sides: list[SideInfo], seat: int | None
) -> Banner | None:
    """The end of a deal, named as players name it (R9.6 to R9.8), and of the match (R9.10)."""
    deal = data["deal"]
    result = deal["result"]
    if result is None:
        return None
    summary = data["results"][-1]
    by_index = {s.index: s for s in sides}
    winner = by_index[result["winner"]]
    names = _side_label(winner)
    courts = summary["courts"]
    outcome = result["result"]
    title: str | Promise
    if summary["streak_court"]:
        title = _("Seven in a row!")
    elif outcome == "52-court":
        title = _("52-court!")
    elif outcome == "court" and result["goon"]:
        title = _("Goon court!")
    elif outcome == "court":
        title = _("Court!")
    elif seat is not None:
        title = _("You win the deal") if winner.yours else _("You lose the deal")
    else:
        title = _("%(names)s win the deal") % {"names": names}
    if courts:
        detail = ngettext(
            "%(names)s score %(courts)d court",
            "%(names)s score %(courts)d courts",
            courts,
        ) % {"names": names, "courts": courts}
    else:
        detail = _("%(names)s win the deal, with no court") % {"names": names}
    match_title: str | Promise = ""
    if data["over"]:
        champion = by_index[data["winner"]]
        if seat is None:
            match_title = _("%(names)s win the match") % {"names": _side_label(champion)}
        else:
            match_title = _("You win the match!") if champion.yours else _("You lose the match")
    return Banner(
        title=str(title),
        detail=str(detail),
        match_title=str(match_title),
        yours=None if seat is None else winner.yours,
        kot=outcome != "won" or summary["streak_court"],
        hakem_kot=outcome == "52-court" or (outcome == "court" and result["goon"]),
        points=courts,
        tricks=[s.tricks for s in sides],
        outcome=outcome,
        goon=result["goon"],
        streak_court=summary["streak_court"],
    )


def play_again(*, match: Match, seats: list[MatchSeat], seat: int | None) -> dict[str, Any] | None:
    """The quick start that gives ``seat``'s player the same game against the computer again:
    variant, computer level and target of this match; None unless he is its only person.

    The match page holds the form (it has the request, hence the CSRF token); the end-of-match
    banner, rendered for the socket too, holds the button that submits it.
    """
    if seat is None or match.table_id is None:
        return None
    others = [s for s in seats if s.index != seat]
    levels = {s.computer_level for s in others}
    if not others or None in levels or len(levels) != 1:
        return None
    again: dict[str, Any] = {
        "variant": match.variant,
        "computer_level": levels.pop(),
        "target": match.target,
    }
    if match.options:
        # Court Piece's table settings go along, as a record stores them (R9.11).
        again["options"] = json.dumps(match.options, sort_keys=True)
        again["max_deals"] = match.max_deals or ""
    return again


def _clock_context(clock: dict[str, Any] | None, match: Match) -> dict[str, Any] | None:
    """The clock as the page shows it: the time left now, which the browser counts down."""
    if clock is None or match.step_at is None:
        return None
    left_ms = max(0, int((match.step_at - timezone.now()).total_seconds() * 1000))
    seconds = clock["seconds"]
    return {
        **clock,
        "remaining_ms": left_ms,
        "remaining_seconds": -(-left_ms // 1000),
        "fraction": f"{min(1.0, left_ms / (seconds * 1000)):.3f}",
    }


def _has(legal: list[dict[str, Any]], kind: str) -> bool:
    return any(action["type"] == kind for action in legal)


def _hand_cards(
    texts: list[str], *, trump: Suit | None, playable: set[str], on_turn: bool
) -> list[HandCard]:
    """The viewer's cards in dealt order, each knowing its place when sorted by suit, so the page
    switches between the two orders without asking the server."""
    cards = parse_cards(texts)
    sorted_index = {card: i for i, card in enumerate(sorted_hand(cards, trump))}
    return [
        HandCard(
            card=card_face(card),
            dealt=i,
            sorted=sorted_index[card],
            playable=card.text in playable,
            dimmed=on_turn and bool(playable) and card.text not in playable,
        )
        for i, card in enumerate(cards)
    ]


def _trick_cards(
    leader: int, texts: list[str], winner: int | None, seat_infos: list[SeatInfo]
) -> list[TrickCard]:
    players = len(seat_infos)
    return [
        TrickCard(
            card=card_face(text),
            seat=seat_infos[(leader + i) % players],
            led=i == 0,
            winner=(leader + i) % players == winner,
        )
        for i, text in enumerate(texts)
    ]


def _sides(
    data: dict[str, Any],
    hand: dict[str, Any],
    *,
    variant: Variant,
    seat: int | None,
    seat_infos: list[SeatInfo],
) -> list[SideInfo]:
    target = data["target"]
    sides = []
    for side, points in enumerate(data["scores"]):
        members = variant.seats_of(side)
        sides.append(
            SideInfo(
                index=side,
                names=[seat_infos[m].name for m in members],
                seats=[seat_infos[m] for m in members],
                points=points,
                tricks=hand["side_tricks"][side],
                yours=seat is not None and seat in members,
                winner=data["winner"] == side,
                petals=[i < points for i in range(target)] if target in PETALS else [],
            )
        )
    # The viewer's own side first, as players expect to read "us - them".
    return sorted(sides, key=lambda s: not s.yours)


def _side_label(side: SideInfo) -> str:
    """A side in the banners, its members named as on their plates ("Easy bot 2")."""
    return " & ".join(member.name for member in side.seats)


def _banner(
    data: dict[str, Any], hand: dict[str, Any], *, sides: list[SideInfo], seat: int | None
) -> Banner | None:
    """The end of a hand (R5: Kot and Hakem Kot named as such) and of the match (R7.1)."""
    result = hand["result"]
    if result is None:
        return None
    by_index = {s.index: s for s in sides}
    winner = by_index[result["winner"]]
    names = _side_label(winner)
    points = result["points"]
    # A side of one player (hokm3, hokm2) takes the verb of one: "bob takes", not "bob take".
    solo = len(winner.seats) == 1
    title: str | Promise  # lazy text, or text made from it
    if result["hakem_kot"]:
        title = _("Hakem Kot!")
    elif result["kot"]:
        title = _("Kot!")
    elif data["over"]:
        title = ""  # the match's result says it all; the hand's stays in the detail line
    elif seat is not None:
        title = _("You win the hand") if winner.yours else _("You lose the hand")
    elif solo:
        title = _("%(name)s wins the hand") % {"name": names}
    else:
        title = _("%(names)s win the hand") % {"names": names}
    if result["kot"] and solo:
        detail = ngettext(
            "%(name)s took the first 7 tricks: %(points)d point",
            "%(name)s took the first 7 tricks: %(points)d points",
            points,
        ) % {"name": names, "points": points}
    elif result["kot"]:
        detail = ngettext(
            "%(names)s took the first 7 tricks: %(points)d point",
            "%(names)s took the first 7 tricks: %(points)d points",
            points,
        ) % {"names": names, "points": points}
    elif solo:
        detail = ngettext(
            "%(name)s takes the hand: %(points)d point",
            "%(name)s takes the hand: %(points)d points",
            points,
        ) % {"name": names, "points": points}
    else:
        detail = ngettext(
            "%(names)s take the hand: %(points)d point",
            "%(names)s take the hand: %(points)d points",
            points,
        ) % {"names": names, "points": points}
    match_title: str | Promise = ""
    if data["over"]:
        champion = by_index[data["winner"]]
        if seat is None:
            if len(champion.seats) == 1:
                match_title = _("%(name)s wins the match") % {"name": _side_label(champion)}
            else:
                match_title = _("%(names)s win the match") % {"names": _side_label(champion)}
        else:
            match_title = _("You win the match!") if champion.yours else _("You lose the match")
    note: str | Promise = ""
    if len(sides) == 3 and winner.tricks < max(s.tricks for s in sides):
        # R5.3.3: the two highest tied, so the third took it; with fewer tricks than both, which
        # players read as a mistake unless it is said.
        note = _("The two highest counts are tied, so the third player takes the hand.")
    return Banner(
        title=str(title),
        detail=str(detail),
        match_title=str(match_title),
        yours=None if seat is None else winner.yours,
        kot=result["kot"],
        hakem_kot=result["hakem_kot"],
        points=points,
        tricks=[s.tricks for s in sides],
        note=str(note),
    )


@dataclass(frozen=True)
class DrawFlip:
    card: CardFace
    seat: SeatInfo
    decisive: bool


def _hakem_draw_context(draw: dict[str, Any], seat_infos: list[SeatInfo]) -> dict[str, Any]:
    """Who received each flip of the first-Hakem draw, by the seats players sit in now."""
    players = len(seat_infos)
    # After a draw for partners (R2.3) players were re-seated: seating[new_seat] = old_seat.
    seating = draw.get("seating") or list(range(players))
    now_at = {old: new for new, old in enumerate(seating)}
    first = draw["first_seat"]
    cards = draw["cards"]
    flips = [
        DrawFlip(
            card=card_face(text),
            seat=seat_infos[now_at[(first + index) % players]],
            decisive=index == len(cards) - 1
            or (draw["method"] == "high_card" and index == len(cards) - 2),
        )
        for index, text in enumerate(cards)
    ]
    partner_flips = [
        DrawFlip(card=card_face(text), seat=seat_infos[now_at[old]], decisive=False)
        for text, old in zip(
            draw.get("partner_cards", []), draw.get("partner_seats", []), strict=True
        )
    ]
    partner = partner_flips[-1].seat if partner_flips else None
    return {
        "method": draw["method"],
        "flips": flips,
        "partner_flips": partner_flips,
        "hakem": seat_infos[now_at[draw["hakem"]]],
        "partner": partner,
    }


def _draw_context(draw: dict[str, Any]) -> dict[str, Any]:
    return {
        "stock_left": draw["stock_left"],
        "turn": draw["turn"],
        "own_discards": [card_face(text) for text in draw["own_discards"]],
        "top": card_face(draw["top"]) if draw["top"] else None,
    }


# The table chat (games.play.chat). Its fragments stay outside #table, which every state replaces.

_CHAT_ERRORS = {
    "chat_rate_limited": _("Too many messages: wait a moment."),
    "chat_empty": _("Write something first."),
    "chat_too_long": _("A message may hold at most 200 characters."),
    "chat_invisible_characters": INVISIBLE_CHARACTERS_MESSAGE,
    "unknown_phrase": _("There is no such quick phrase."),
    "not_seated": _("Only the players can write in the chat."),
    "muted": _("You are muted in the chat."),
}


def _chat_line(message: ChatMessage, seat: int | None) -> dict[str, Any]:
    text = phrase_text(message.phrase) if message.phrase in QUICK_PHRASES else message.text
    return {
        "id": message.pk,
        "seat": message.seat,
        "name": message.name,
        "text": text,
        "phrase": message.phrase,
        "at": message.created_at,
        "own": seat is not None and message.seat == seat,
    }


def render_chat_message(message: ChatMessage, *, seat: int | None) -> str:
    """One message appended to ``#chat-log`` out of band, for the viewer at ``seat``."""
    return render_to_string(
        "games/_chat_append.html",
        {"line": _chat_line(message, seat), "own": seat is not None and message.seat == seat},
    )


def chat_lines(messages: list[ChatMessage], *, seat: int | None) -> list[dict[str, Any]]:
    """What ``games/_chat_line.html`` shows of each message, for the viewer at ``seat``."""
    return [_chat_line(m, seat) for m in messages]


def render_chat_log(messages: list[ChatMessage], *, seat: int | None) -> str:
    """The whole ``#chat-log`` (the last messages, oldest first), replacing the page's."""
    lines = chat_lines(messages, seat=seat)
    return render_to_string("games/_chat_log.html", {"lines": lines, "oob": True})


def render_chat_error(code: str) -> str:
    """The ``#chat-error`` line of the chat panel with why a message was refused."""
    message = _CHAT_ERRORS.get(code, _("The message could not be sent."))
    return render_to_string("games/_chat_error.html", {"chat_error": message, "oob": True})
