"""The game record ``hokm-record/1`` (shared/RECORD.md): build, replay and check.

This module sits beside the engine as PGN sits beside a chess board: it turns a record into engine
actions and back, and it finds the first fault of a record in the order the match would be played,
locating it by hand, trick and seat.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from .actions import Action, CallTrump, Discard, KeepOrThrow, PlayCard
from .cards import Card, CardTextError, Suit, cards_text
from .draw import DrawError, HakemDraw, first_ace_hakem, high_card_hakem
from .errors import CardNotHeldError, IllegalActionError, MustFollowSuitError
from .fair import FairBlock, FairError, read_fair_block, verify_deal, verify_flips
from .hand import DeckError, HandResult, HandState, Phase, apply, deck_from_deal, new_hand
from .variants import HakemDrawMethod, UnknownVariantError, Variant, get_variant

FORMAT = "hokm-record/1"
COURT_PIECE = "court-piece"  # R9: its own checker, games/engine/court_piece/record.py


class RecordFault(ValueError):
    """The first fault of a record, located as RECORD.md asks (zero-based, None where it says)."""

    def __init__(
        self,
        message: str,
        *,
        hand: int | None = None,
        trick: int | None = None,
        seat: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message, self.hand, self.trick, self.seat = message, hand, trick, seat

    def to_json(self) -> dict[str, Any]:
        return {
            "valid": False,
            "error": self.message,
            "hand": self.hand,
            "trick": self.trick,
            "seat": self.seat,
        }


@dataclass
class ReplayedHand:
    """One hand of a record as the engine played it."""

    hakem: int
    trump: Suit
    deck: tuple[Card, ...]
    actions: list[Action]
    state: HandState

    @property
    def result(self) -> HandResult | None:
        return self.state.result


@dataclass
class RecordReplay:
    variant: Variant
    target: int
    players: list[str]
    draw: HakemDraw | None
    hands: list[ReplayedHand] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)

    @property
    def winner(self) -> int | None:
        return next((s for s, score in enumerate(self.scores) if score >= self.target), None)


# -- building a record ---------------------------------------------------------------------------


def build_record(
    *,
    variant: Variant,
    target: int,
    players: Sequence[str],
    draw: HakemDraw | None,
    hands: Sequence[HandState],
) -> dict[str, Any]:
    """The ``hokm-record/1`` document of a match from its hands' engine states, finished or not.

    It holds every card dealt: give it to players only when no hand in it is still hidden (R8.3).
    """
    document: dict[str, Any] = {
        "format": FORMAT,
        "variant": variant.name,
        "target": target,
        "players": list(players),
    }
    if draw is not None and not draw.partner_drawn:
        document["hakem_draw"] = {"first_seat": draw.first_seat, "cards": cards_text(draw.cards)}
    # A record holds a hand from the moment its cards are all dealt (RECORD.md's `cards` are the
    # holdings when play starts): a hand still at its trump call or draw is left out.
    document["hands"] = [hand_record(state) for state in hands if state.phase in _IN_PLAY]
    return document


_IN_PLAY = (Phase.PLAY, Phase.DONE)


def hand_record(state: HandState) -> dict[str, Any]:
    """One hand of a record, from a state whose play has started."""
    if state.phase not in _IN_PLAY:
        raise ValueError("a hand enters a record once its cards are all dealt")
    n = state.players
    played_by: list[list[Card]] = [[] for _ in range(n)]
    tricks = [list(t.cards) for t in state.tricks]
    for trick in state.tricks:
        for index, card in enumerate(trick.cards):
            played_by[trick.seat_of(index, n)].append(card)
    for index, card in enumerate(state.current):
        played_by[(state.leader + index) % n].append(card)
    if state.current:
        tricks.append(list(state.current))
    holdings = [played_by[s] + list(state.holdings[s]) for s in range(n)]
    data: dict[str, Any] = {
        "hakem": state.hakem,
        "trump": state.trump.value if state.trump else None,
        "first5": cards_text(state.first5),
        "cards": [cards_text(h) for h in holdings],
        "tricks": [cards_text(t) for t in tricks],
    }
    variant = state.variant
    if variant.unseen_count:
        data["unseen"] = cards_text(state.deck[len(state.deck) - variant.unseen_count :])
    if variant.has_draw:
        data["draw"] = {
            "dealer5": cards_text(state.dealer5),
            "discards": [
                cards_text(state.discards[state.hakem][: variant.draw_discards[0]]),
                cards_text(state.discards[state.dealer][: variant.draw_discards[1]]),
            ],
            "stock": cards_text(state.deck[sum(c for _, c in variant.before_call) :]),
            "keep_first": list(state.keep_first),
        }
    return data


# -- reading and checking a record ---------------------------------------------------------------


def load_record(text: str | bytes) -> Any:
    """Parse the JSON text of a record; raises :class:`RecordFault` (all locations None)."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as error:
        raise RecordFault(f"the record is not JSON: {error}") from None


def check_record(document: Any) -> dict[str, Any]:
    """The checker's verdict, exactly the JSON object RECORD.md describes."""
    if isinstance(document, dict) and document.get("variant") == COURT_PIECE:
        # Imported here: the court-piece checker builds on this module's helpers.
        from .court_piece.record import check_court_piece_record

        return check_court_piece_record(document)
    try:
        replay = replay_record(document)
    except RecordFault as fault:
        return fault.to_json()
    results = [h.result for h in replay.hands if h.result is not None]
    return {
        "valid": True,
        "complete": replay.winner is not None,
        "score": list(replay.scores),
        "winner": replay.winner,
        "hands": [
            {
                "tricks_won": list(r.tricks_won),
                "winner": r.winner,
                "points": r.points,
                "kot": r.kot,
                "next_hakem": r.next_hakem,
            }
            for r in results
        ],
    }


def replay_record(document: Any) -> RecordReplay:
    """Play a record through the engine; raises :class:`RecordFault` at its first fault."""
    if not isinstance(document, dict):
        raise RecordFault("the record must be a JSON object")
    if document.get("format") != FORMAT:
        raise RecordFault(f'"format" must be "{FORMAT}", not {_shown(document.get("format"))}')
    try:
        variant = get_variant(document.get("variant"))
    except UnknownVariantError as error:
        raise RecordFault(str(error)) from None
    if variant.family != "hokm":
        raise RecordFault(f"{variant.name} records are read by replay_court_piece_record")
    target = document.get("target")
    if not _is_int(target) or target < 1:
        raise RecordFault(f'"target" must be a positive whole number, not {_shown(target)}')
    players = document.get("players")
    if (
        not isinstance(players, list)
        or len(players) != variant.players
        or not all(isinstance(p, str) and p.strip() for p in players)
    ):
        raise RecordFault(f'"players" must list {variant.players} names, one per seat')
    hands = document.get("hands")
    started = isinstance(hands, list) and bool(hands)
    draw = (
        _read_hakem_draw(document.get("hakem_draw"), variant, started)
        if "hakem_draw" in document
        else None
    )
    if not isinstance(hands, list):
        raise RecordFault('"hands" must be a list')
    replay = RecordReplay(variant, target, list(players), draw, scores=[0] * variant.sides)
    for number, hand in enumerate(hands):
        if replay.winner is not None:
            raise RecordFault(f"hand {number} is played after the match was decided", hand=number)
        if replay.hands and replay.hands[-1].result is None:
            raise RecordFault(
                f"hand {number} comes after hand {number - 1}, which was not played to its end",
                hand=number,
            )
        expected = _expected_hakem(replay, number)
        is_last = number == len(hands) - 1
        replayed = _replay_hand(hand, number, variant, expected, is_last)
        replay.hands.append(replayed)
        if replayed.result is not None:
            replay.scores[replayed.result.winner] += replayed.result.points
    return replay


def _expected_hakem(replay: RecordReplay, number: int) -> int | None:
    if number == 0:
        return replay.draw.hakem if replay.draw else None
    return replay.hands[-1].result.next_hakem  # type: ignore[union-attr]


def _read_hakem_draw(data: Any, variant: Variant, started: bool) -> HakemDraw:
    if not isinstance(data, dict):
        raise RecordFault('"hakem_draw" must be an object with "first_seat" and "cards"')
    first_seat, texts = data.get("first_seat"), data.get("cards")
    if not _is_int(first_seat) or not 0 <= first_seat < variant.players:
        raise RecordFault(
            f'"hakem_draw": "first_seat" must be a seat from 0 to {variant.players - 1}'
        )
    if not isinstance(texts, list) or not texts:
        raise RecordFault('"hakem_draw": "cards" must be a non-empty list of cards')
    try:
        cards = [Card.parse(text) for text in texts]
    except CardTextError as error:
        raise RecordFault(f'"hakem_draw": {error}') from None
    try:
        if variant.hakem_draw is HakemDrawMethod.HIGH_CARD:
            hakem = high_card_hakem(cards, first_seat, variant.players)
        else:
            hakem = first_ace_hakem(cards, first_seat, variant.players)
    except DrawError as error:
        raise RecordFault(f"the Hakem draw is broken: {error}") from None
    check_fair_flips(
        data,
        variant,
        started,
        lambda message: RecordFault(f'"hakem_draw": {message}'),
        lambda block: verify_flips(block, variant, first_seat=first_seat, cards=cards),
    )
    return HakemDraw(variant.hakem_draw, first_seat, tuple(cards), hakem)


def _replay_hand(
    data: Any, number: int, variant: Variant, expected_hakem: int | None, is_last: bool
) -> ReplayedHand:
    def fault(message: str) -> RecordFault:
        return RecordFault(f"hand {number}: {message}", hand=number)

    if not isinstance(data, dict):
        raise fault("must be an object")
    hakem = data.get("hakem")
    if not _is_int(hakem) or not 0 <= hakem < variant.players:
        raise fault(f'"hakem" must be a seat from 0 to {variant.players - 1}')
    if expected_hakem is not None and hakem != expected_hakem:
        rule = "the Hakem draw" if number == 0 else "R6"
        raise fault(f"the Hakem should be seat {expected_hakem} by {rule}, not seat {hakem}")
    n = variant.players
    first5 = _card_list(data.get("first5"), '"first5"', fault)
    cards = data.get("cards")
    if not isinstance(cards, list) or len(cards) != n:
        raise fault(f'"cards" must hold {n} lists, one per seat')
    holdings = [
        _card_list(seat_cards, f'"cards"[{s}]', fault) for s, seat_cards in enumerate(cards)
    ]
    trump_text = data.get("trump")
    # A list or an object is no suit (and cannot be looked up in a set: no TypeError here).
    if not isinstance(trump_text, str) or trump_text not in {s.value for s in Suit}:
        raise fault(f'"trump" must be one of S, H, D, C, not {_shown(trump_text)}')
    trump = Suit(trump_text)
    tricks = data.get("tricks")
    if not isinstance(tricks, list):
        raise fault('"tricks" must be a list of tricks')

    _check_holdings(variant, holdings, fault)
    if len(first5) != 5 or len(set(first5)) != 5:
        raise fault('"first5" must be 5 different cards')
    # Beside the holdings, what a fair shuffle must have dealt (R8.4): the draw's or the unseen.
    dealer5: Sequence[Card] | None = None
    stock: Sequence[Card] | None = None
    unseen: Sequence[Card] | None = None
    if variant.has_draw:
        draw = _read_draw(data.get("draw"), variant, hakem, first5, holdings, fault)
        deck = tuple(first5) + draw["dealer5"] + draw["stock"]
        dealer5, stock = draw["dealer5"], draw["stock"]
    else:
        missing = [card for card in first5 if card not in holdings[hakem]]
        if missing:
            raise fault(f'"first5" holds {missing[0]}, which is not among the Hakem\'s cards')
        rest = _read_unseen(data, variant, holdings, fault)
        try:
            deck = deck_from_deal(variant, hakem=hakem, first5=first5, holdings=holdings, rest=rest)
        except DeckError as error:
            raise fault(str(error)) from None
        if variant.unseen_count and "unseen" in data:
            unseen = rest
    fair = check_fair(
        data,
        n,
        fault,
        lambda block: verify_deal(
            block,
            variant,
            hand_index=number,
            lead=hakem,
            first5=first5,
            cards=holdings,
            dealer5=dealer5,
            stock=stock,
            unseen=unseen,
        ),
    )

    actions: list[Action] = [CallTrump(hakem, trump)]
    if variant.has_draw:
        dealer = variant.dealer_for(hakem)
        actions.append(Discard(hakem, draw["discards"][0]))
        actions.append(Discard(dealer, draw["discards"][1]))
        actions += [
            KeepOrThrow(hakem if t % 2 == 0 else dealer, keep)
            for t, keep in enumerate(draw["keep_first"])
        ]
    state = new_hand(variant, hakem=hakem, deck=deck)
    for action in actions:
        state = apply(state, action)
    if variant.has_draw:
        for seat in range(n):
            if sorted(state.holdings[seat]) != sorted(holdings[seat]):
                raise fault(f'"cards"[{seat}] is not what the draw gives seat {seat}')
    state = _replay_tricks(tricks, state, number, is_last, actions)
    check_fair_revealed(fair, state.is_over, fault)
    return ReplayedHand(hakem=hakem, trump=trump, deck=deck, actions=actions, state=state)


def _replay_tricks(
    tricks: list[Any], state: HandState, number: int, is_last: bool, actions: list[Action]
) -> HandState:
    n = state.players
    for index, trick in enumerate(tricks):
        leader = state.leader
        fault = _trick_fault(number, index)

        if state.is_over:
            raise fault("played after the hand was decided", leader)
        if not isinstance(trick, list):
            raise fault("must be a list of cards", leader)
        for position, text in enumerate(trick):
            seat = (leader + position) % n
            if position >= n:
                raise fault(f"has more than {n} cards", seat)
            try:
                card = Card.parse(text)
            except CardTextError as error:
                raise fault(f"seat {seat}: {error}", seat) from None
            action = PlayCard(seat, card)
            try:
                state = apply(state, action)
            except IllegalActionError as error:
                raise fault(_play_fault(seat, card, error), seat) from None
            actions.append(action)
        if len(trick) < n and not (is_last and index == len(tricks) - 1):
            due = (leader + len(trick)) % n
            raise fault(
                f"has only {len(trick)} of {n} cards, but only the last trick of the record "
                f"may be left short (seat {due} is due to play)",
                due,
            )
    return state


def _trick_fault(number: int, index: int) -> Callable[[str, int], RecordFault]:
    def fault(message: str, seat: int) -> RecordFault:
        return RecordFault(
            f"hand {number}, trick {index}: {message}", hand=number, trick=index, seat=seat
        )

    return fault


def _play_fault(seat: int, card: Card, error: IllegalActionError) -> str:
    if isinstance(error, MustFollowSuitError):
        led = error.led
        return f"seat {seat} played {card} but holds a {led.singular} and {led.plural} were led"
    if isinstance(error, CardNotHeldError):
        if error.already_played:
            return f"seat {seat} played {card}, which was already played"
        return f"seat {seat} played {card}, which is not in that seat's hand"
    return f"seat {seat} played {card}: {error}"


def _check_holdings(variant: Variant, holdings: list[list[Card]], fault: Any) -> None:
    """Counts, duplicates and foreign cards of a deal (R3.2 to R3.5)."""
    seen: dict[Card, int] = {}
    for seat, cards in enumerate(holdings):
        for card in cards:
            if card in variant.removed:
                raise fault(f"seat {seat} holds {card}, which {variant.name} does not use (R3.3)")
            if card in seen:
                where = "twice" if seen[card] == seat else f"and so does seat {seen[card]}"
                raise fault(f"seat {seat} holds {card} {where}")
            seen[card] = seat
    for seat, cards in enumerate(holdings):
        if len(cards) != variant.hand_size:
            raise fault(
                f"seat {seat} holds {len(cards)} cards, but {variant.name} deals "
                f"{variant.hand_size} to each"
            )


def _read_unseen(
    data: dict[str, Any], variant: Variant, holdings: list[list[Card]], fault: Any
) -> list[Card]:
    if not variant.unseen_count or "unseen" not in data:
        return []
    unseen = _card_list(data.get("unseen"), '"unseen"', fault)
    dealt = {card for cards in holdings for card in cards}
    if len(unseen) != variant.unseen_count or len(set(unseen)) != len(unseen):
        raise fault(f'"unseen" must be the {variant.unseen_count} undealt cards')
    clash = [card for card in unseen if card in dealt]
    if clash:
        raise fault(f'"unseen" holds {clash[0]}, which was dealt')
    return unseen


def _read_draw(
    data: Any,
    variant: Variant,
    hakem: int,
    first5: list[Card],
    holdings: list[list[Card]],
    fault: Any,
) -> dict[str, Any]:
    """R3.5's draw: the dealer's 5, the discards, the 42-card stock and the 21 choices."""
    if not isinstance(data, dict):
        raise fault('"draw" must be an object (hokm2-draw)')
    dealer5 = _card_list(data.get("dealer5"), '"draw.dealer5"', fault)
    stock = _card_list(data.get("stock"), '"draw.stock"', fault)
    discards = data.get("discards")
    if not isinstance(discards, list) or len(discards) != 2:
        raise fault("\"draw.discards\" must hold the Hakem's 3 and the dealer's 2 discards")
    hakem_discards = _card_list(discards[0], '"draw.discards"[0]', fault)
    dealer_discards = _card_list(discards[1], '"draw.discards"[1]', fault)
    keep_first = data.get("keep_first")
    turns = variant.stock_size // 2
    if (
        not isinstance(keep_first, list)
        or len(keep_first) != turns
        or not all(isinstance(k, bool) for k in keep_first)
    ):
        raise fault(f'"draw.keep_first" must be {turns} booleans')
    if len(dealer5) != 5 or len(set(dealer5)) != 5:
        raise fault('"draw.dealer5" must be 5 different cards')
    if len(stock) != variant.stock_size:
        raise fault(f'"draw.stock" must hold {variant.stock_size} cards, not {len(stock)}')
    deck = first5 + dealer5 + stock
    if len(set(deck)) != len(deck):
        duplicate = next(card for card in deck if deck.count(card) > 1)
        raise fault(f"the draw uses {duplicate} twice (first5, dealer5 and stock)")
    for own, chosen, count, who in (
        (first5, hakem_discards, variant.draw_discards[0], "the Hakem"),
        (dealer5, dealer_discards, variant.draw_discards[1], "the dealer"),
    ):
        if len(chosen) != count or len(set(chosen)) != count or not set(chosen) <= set(own):
            raise fault(f"{who} must discard {count} of his own first 5 cards (R3.5)")
    return {
        "dealer5": tuple(dealer5),
        "stock": tuple(stock),
        "discards": (tuple(hakem_discards), tuple(dealer_discards)),
        "keep_first": keep_first,
    }


# -- fair deals (R8.4) ---------------------------------------------------------------------------


def check_fair(
    data: dict[str, Any],
    players: int,
    fault: Callable[[str], RecordFault],
    verify: Callable[[FairBlock], None],
) -> FairBlock | None:
    """A hand's optional ``fair`` block (RECORD.md, "Fair deals"): its shapes, and once its seed
    is revealed, ``verify`` (the commitment and the deal). A block that does not verify is a
    fault of its hand: ``fault`` gives the hand's location."""
    value = data.get("fair")
    if value is None:
        return None
    try:
        block = read_fair_block(value, players)
        if block.revealed:
            verify(block)
    except FairError as error:
        raise fault(f'"fair": {error} (R8.4)') from None
    return block


def check_fair_revealed(
    block: FairBlock | None, finished: bool, fault: Callable[[str], RecordFault]
) -> None:
    """R8.4: the server seed is revealed when the hand ends, so a finished hand's block holds it;
    only an unfinished hand's block has the commitment and the client seeds alone."""
    if block is not None and finished and not block.revealed:
        raise fault('"fair": the hand is finished, so its block must reveal its server_seed (R8.4)')


def check_fair_flips(
    data: dict[str, Any],
    variant: Variant,
    started: bool,
    fault: Callable[[str], RecordFault],
    verify: Callable[[FairBlock], None],
) -> None:
    """The flips' optional ``fair`` block: verified as a hand's is; its seed is revealed when
    the first hand starts, so a record with a hand must hold it. ``fault`` locates the fault on
    the whole document."""
    block = check_fair(data, variant.players, fault, verify)
    if block is not None and started and not block.revealed:
        raise fault(
            '"fair": the first hand has started, so the block must reveal its server_seed (R8.4)'
        )


def _card_list(value: Any, what: str, fault: Any) -> list[Card]:
    if not isinstance(value, list):
        raise fault(f"{what} must be a list of cards")
    try:
        return [Card.parse(text) for text in value]
    except CardTextError as error:
        raise fault(f"{what}: {error}") from None


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _shown(value: Any) -> str:
    text = json.dumps(value) if value is not None else "missing"
    return text if len(text) <= 40 else text[:37] + "..."
