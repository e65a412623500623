"""``hokm-record/1`` for variant ``court-piece`` (RECORD.md, "Variant court-piece"): build a
record from played deals, and replay and check one, finding its first fault in play order."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..actions import CallTrump, ChooseIndicator, PlayCard, RevealTrump
from ..cards import Card, CardTextError, Suit, cards_text
from ..draw import DrawError
from ..errors import CardNotHeldError, IllegalActionError, IndicatorHiddenError, MustTrumpError
from ..fair import verify_deal, verify_flips
from ..hand import DeckError
from ..record import (
    FORMAT,
    RecordFault,
    _card_list,
    _is_int,
    _play_fault,
    _shown,
    check_fair,
    check_fair_flips,
    check_fair_revealed,
)
from ..variants import COURT_PIECE
from .deal import CourtPieceDeal, DealPhase, Reveal, deal_apply, deck_from_court_deal, new_deal
from .match import DealerDraw, DealSummary, Streak, check_dealer_draw, match_winner, summarise
from .options import NAME, PLAYERS, CourtPieceOptions, HiddenTrump, OptionsError
from .view import summary_json

# -- building a record ---------------------------------------------------------------------------


def build_court_piece_record(
    *,
    options: CourtPieceOptions,
    target: int,
    players: Sequence[str],
    draw: DealerDraw | None,
    deals: Sequence[CourtPieceDeal],
    max_deals: int | None = None,
) -> dict[str, Any]:
    """The record of a match from its deals' states, finished or not; a deal still at its call
    is left out. It holds every card dealt: give it to players only when no deal in it is still
    hidden (R8.3)."""
    document: dict[str, Any] = {
        "format": FORMAT,
        "variant": NAME,
        "target": target,
        "max_deals": max_deals,
        "options": options.to_json(),
        "players": list(players),
    }
    if draw is not None:
        document["dealer_draw"] = draw.to_json()
    document["hands"] = [deal_record(d) for d in deals if d.phase is not DealPhase.CALL]
    return document


def deal_record(state: CourtPieceDeal) -> dict[str, Any]:
    """One deal of a record, from a state whose play has started."""
    if state.phase is DealPhase.CALL:
        raise ValueError("a deal enters a record once its cards are all dealt")
    played_by: list[list[Card]] = [[] for _ in range(PLAYERS)]
    tricks = [list(t.cards) for t in state.tricks]
    for trick in state.tricks:
        for index, card in enumerate(trick.cards):
            played_by[trick.seat_of(index)].append(card)
    for index, card in enumerate(state.current):
        played_by[(state.leader + index) % PLAYERS].append(card)
    if state.current:
        tricks.append(list(state.current))
    holdings = [played_by[s] + list(state.holdings[s]) for s in range(PLAYERS)]
    if state.indicator is not None and not state.revealed:
        holdings[state.caller].append(state.indicator)
    hidden = None
    if state.options.hidden and state.indicator is not None:
        reveal = state.reveal
        hidden = {
            "card": state.indicator.text,
            "reveal": {"trick": reveal.trick, "seat": reveal.seat} if reveal else None,
        }
    return {
        "dealer": state.dealer,
        "caller": state.caller,
        "trump": state.trump.value if state.trump else None,
        "first5": cards_text(state.first5),
        "hidden": hidden,
        "cards": [cards_text(h) for h in holdings],
        "tricks": [cards_text(t) for t in tricks],
    }


# -- replaying and checking ----------------------------------------------------------------------


@dataclass
class CourtPieceReplay:
    options: CourtPieceOptions
    target: int
    max_deals: int | None
    players: list[str]
    draw: DealerDraw | None
    deals: list[CourtPieceDeal] = field(default_factory=list)
    summaries: list[DealSummary] = field(default_factory=list)

    @property
    def scores(self) -> tuple[int, int]:
        return self.summaries[-1].scores if self.summaries else (0, 0)

    @property
    def winner(self) -> int | None:
        return match_winner(self.summaries, self.target, self.max_deals)


def check_court_piece_record(document: Any) -> dict[str, Any]:
    """The checker's verdict on a court-piece record, exactly as RECORD.md prints it."""
    try:
        replay = replay_court_piece_record(document)
    except RecordFault as fault:
        return fault.to_json()
    hands = []
    for deal, summary in zip(replay.deals, replay.summaries, strict=False):
        entry = summary_json(summary)
        reveal = deal.reveal
        entry["reveal"] = {"trick": reveal.trick, "seat": reveal.seat} if reveal else None
        hands.append(entry)
    return {
        "valid": True,
        "complete": replay.winner is not None,
        "score": list(replay.scores),
        "winner": replay.winner,
        "hands": hands,
    }


def replay_court_piece_record(document: Any) -> CourtPieceReplay:
    """Play a court-piece record through the engine; raises :class:`RecordFault` at its first
    fault."""
    if not isinstance(document, dict):
        raise RecordFault("the record must be a JSON object")
    if document.get("format") != FORMAT:
        raise RecordFault(f'"format" must be "{FORMAT}", not {_shown(document.get("format"))}')
    if document.get("variant") != NAME:
        raise RecordFault(f'"variant" must be "{NAME}" here')
    target = document.get("target")
    if not _is_int(target) or target < 1:
        raise RecordFault(f'"target" must be a positive whole number, not {_shown(target)}')
    max_deals = document.get("max_deals")
    if max_deals is not None and (not _is_int(max_deals) or max_deals < 1):
        raise RecordFault(
            f'"max_deals" must be null or a positive whole number, not {_shown(max_deals)}'
        )
    try:
        options = CourtPieceOptions.from_json(document.get("options", {}))
    except OptionsError as error:
        raise RecordFault(f"bad options: {error}") from None
    players = document.get("players")
    if (
        not isinstance(players, list)
        or len(players) != PLAYERS
        or not all(isinstance(p, str) and p.strip() for p in players)
    ):
        raise RecordFault('"players" must list 4 names, one per seat')
    hands = document.get("hands")
    started = isinstance(hands, list) and bool(hands)
    draw = (
        _read_draw(document["dealer_draw"], options, started) if "dealer_draw" in document else None
    )
    if not isinstance(hands, list):
        raise RecordFault('"hands" must be a list')
    replay = CourtPieceReplay(options, target, max_deals, list(players), draw)
    for number, hand in enumerate(hands):
        if replay.winner is not None:
            raise RecordFault(f"hand {number} is played after the match was decided", hand=number)
        if replay.deals and not replay.deals[-1].is_over:
            raise RecordFault(
                f"hand {number} comes after hand {number - 1}, which was not played to its end",
                hand=number,
            )
        deal = _replay_deal(hand, number, replay, is_last=number == len(hands) - 1)
        replay.deals.append(deal)
        if deal.is_over:
            streak = replay.summaries[-1].streak if replay.summaries else Streak()
            replay.summaries.append(summarise(deal, streak, replay.scores))
    return replay


def _read_draw(data: Any, options: CourtPieceOptions, started: bool) -> DealerDraw:
    if not isinstance(data, dict):
        raise RecordFault('"dealer_draw" must be an object with "first_seat" and "cards"')
    first_seat, texts = data.get("first_seat"), data.get("cards")
    if not _is_int(first_seat) or not 0 <= first_seat < PLAYERS:
        raise RecordFault('"dealer_draw": "first_seat" must be a seat from 0 to 3')
    if not isinstance(texts, list) or not texts:
        raise RecordFault('"dealer_draw": "cards" must be a non-empty list of cards')
    try:
        cards = [Card.parse(text) for text in texts]
        check_dealer_draw(cards, first_seat, options.ace_caller)
    except CardTextError as error:
        raise RecordFault(f'"dealer_draw": {error}') from None
    except DrawError as error:
        raise RecordFault(f"the dealer draw is broken: {error}") from None
    check_fair_flips(
        data,
        COURT_PIECE,
        started,
        lambda message: RecordFault(f'"dealer_draw": {message}'),
        lambda block: verify_flips(
            block, COURT_PIECE, first_seat=first_seat, cards=cards, ace_caller=options.ace_caller
        ),
    )
    return DealerDraw(first_seat, tuple(cards), options.ace_caller)


def _expected_seats(replay: CourtPieceReplay, number: int) -> tuple[int, str] | None:
    """The dealer R9.2 / R9.16 / R9.9 names for hand ``number``, and the rule's name."""
    if number == 0:
        return (replay.draw.dealer, "the dealer draw") if replay.draw else None
    return replay.summaries[-1].next_dealer, "R9.9"


def _replay_deal(
    data: Any, number: int, replay: CourtPieceReplay, *, is_last: bool
) -> CourtPieceDeal:
    def fault(message: str) -> RecordFault:
        return RecordFault(f"hand {number}: {message}", hand=number)

    options = replay.options
    if not isinstance(data, dict):
        raise fault("must be an object")
    dealer, caller = data.get("dealer"), data.get("caller")
    for name, seat in (("dealer", dealer), ("caller", caller)):
        if not _is_int(seat) or not 0 <= seat < PLAYERS:
            raise fault(f'"{name}" must be a seat from 0 to 3')
    assert _is_int(dealer) and _is_int(caller)
    if caller != (dealer + 1) % PLAYERS:
        raise fault(f"the caller must be the dealer + 1 (R9.3.1): seat {(dealer + 1) % PLAYERS}")
    expected = _expected_seats(replay, number)
    if expected is not None and dealer != expected[0]:
        seat, rule = expected
        if number == 0 and options.ace_caller is not None:
            raise fault(
                f"the caller should be seat {(seat + 1) % PLAYERS} by {rule}, not seat {caller}"
            )
        raise fault(f"the dealer should be seat {seat} by {rule}, not seat {dealer}")
    first5 = _card_list(data.get("first5"), '"first5"', fault)
    cards = data.get("cards")
    if not isinstance(cards, list) or len(cards) != PLAYERS:
        raise fault('"cards" must hold 4 lists, one per seat')
    holdings = [_card_list(c, f'"cards"[{s}]', fault) for s, c in enumerate(cards)]
    trump_text = data.get("trump")
    if not isinstance(trump_text, str) or trump_text not in {s.value for s in Suit}:
        raise fault(f'"trump" must be one of S, H, D, C, not {_shown(trump_text)}')
    trump = Suit(trump_text)
    tricks = data.get("tricks")
    if not isinstance(tricks, list):
        raise fault('"tricks" must be a list of tricks')
    _check_holdings(holdings, fault)
    if len(first5) != 5 or len(set(first5)) != 5:
        raise fault('"first5" must be 5 different cards')
    outside = [card for card in first5 if card not in holdings[caller]]
    if outside:
        raise fault(f'"first5" holds {outside[0]}, which is not among the caller\'s cards')
    indicator, reveal = _read_hidden(data, options, first5, trump, fault)
    try:
        deck = deck_from_court_deal(caller=caller, first5=first5, holdings=holdings)
    except DeckError as error:
        raise fault(str(error)) from None
    blind = options.hidden_trump is HiddenTrump.BLIND
    fair = check_fair(
        data,
        PLAYERS,
        fault,
        lambda block: verify_deal(
            block,
            COURT_PIECE,
            hand_index=number,
            lead=caller,
            first5=first5,
            cards=holdings,
            indicator=indicator if blind else None,
        ),
    )
    pick = first5.index(indicator) if indicator is not None else 0
    state = new_deal(options, dealer=dealer, deck=deck, blind_pick=pick)
    if options.hidden_trump is HiddenTrump.CHOSEN:
        assert indicator is not None
        state = deal_apply(state, ChooseIndicator(caller, indicator))
    elif options.hidden_trump is HiddenTrump.OFF:
        state = deal_apply(state, CallTrump(caller, trump))
    state = _TrickReplay(number, state, reveal, is_last).run(tricks)
    check_fair_revealed(fair, state.is_over, fault)
    return state


def _read_hidden(
    data: dict[str, Any],
    options: CourtPieceOptions,
    first5: list[Card],
    trump: Suit,
    fault: Callable[[str], RecordFault],
) -> tuple[Card | None, Reveal | None]:
    hidden = data.get("hidden")
    if not options.hidden:
        if hidden is not None:
            raise fault('"hidden" must be null: trump is not hidden at this table')
        return None, None
    if not isinstance(hidden, dict):
        raise fault('"hidden" is required under hidden trump: {"card": ..., "reveal": ...}')
    try:
        card = Card.parse(hidden.get("card"))
    except CardTextError as error:
        raise fault(f'"hidden.card": {error}') from None
    if card not in first5:
        raise fault(f'the indicator {card} is not one of the caller\'s "first5"')
    if card.suit != trump:
        raise fault(f"the indicator {card} is not of the trump suit {trump.value}")
    reveal = hidden.get("reveal")
    if reveal is None:
        return card, None
    if not isinstance(reveal, dict):
        raise fault('"hidden.reveal" must be null or {"trick": ..., "seat": ...}')
    trick, seat = reveal.get("trick"), reveal.get("seat")
    if not _is_int(trick) or trick < 0 or not _is_int(seat) or not 0 <= seat < PLAYERS:
        raise fault('"hidden.reveal" needs a trick from 0 and a seat from 0 to 3')
    return card, Reveal(trick, seat)


def _check_holdings(holdings: list[list[Card]], fault: Callable[[str], RecordFault]) -> None:
    seen: dict[Card, int] = {}
    for seat, cards in enumerate(holdings):
        for card in cards:
            if card in seen:
                where = "twice" if seen[card] == seat else f"and so does seat {seen[card]}"
                raise fault(f"seat {seat} holds {card} {where}")
            seen[card] = seat
    for seat, cards in enumerate(holdings):
        if len(cards) != 13:
            raise fault(f"seat {seat} holds {len(cards)} cards, but court-piece deals 13 to each")


class _TrickReplay:
    """The tricks of one deal, with the recorded reveal put before its seat's card."""

    def __init__(
        self, number: int, state: CourtPieceDeal, reveal: Reveal | None, is_last: bool
    ) -> None:
        self.number, self.state, self.reveal, self.is_last = number, state, reveal, is_last
        self.reveal_done = False

    def fault(self, index: int, message: str, seat: int) -> RecordFault:
        return RecordFault(
            f"hand {self.number}, trick {index}: {message}",
            hand=self.number,
            trick=index,
            seat=seat,
        )

    def run(self, tricks: list[Any]) -> CourtPieceDeal:
        self._check_automatic_reveal()
        for index, trick in enumerate(tricks):
            leader = self.state.leader
            if self.state.is_over:
                raise self.fault(index, "played after the deal was decided", leader)
            if not isinstance(trick, list):
                raise self.fault(index, "must be a list of cards", leader)
            for position, text in enumerate(trick):
                seat = (leader + position) % PLAYERS
                if position >= PLAYERS:
                    raise self.fault(index, f"has more than {PLAYERS} cards", seat)
                try:
                    card = Card.parse(text)
                except CardTextError as error:
                    raise self.fault(index, f"seat {seat}: {error}", seat) from None
                self._recorded_reveal(index, seat)
                self._play(index, seat, card)
            if len(trick) < PLAYERS and not (self.is_last and index == len(tricks) - 1):
                due = (leader + len(trick)) % PLAYERS
                raise self.fault(
                    index,
                    f"has only {len(trick)} of {PLAYERS} cards, but only the last trick of the "
                    f"record may be left short (seat {due} is due to play)",
                    due,
                )
        return self._finish()

    def _recorded_reveal(self, index: int, seat: int) -> None:
        wanted = self.reveal
        if wanted is None or self.reveal_done or (wanted.trick, wanted.seat) != (index, seat):
            return
        try:
            self.state = deal_apply(self.state, RevealTrump(seat))
        except IllegalActionError as error:
            raise self.fault(index, f"seat {seat} may not reveal trump: {error}", seat) from None
        self.reveal_done = True

    def _play(self, index: int, seat: int, card: Card) -> None:
        state = self.state
        # The checker knows every card: the faults name what the table's refusals may not (the
        # engine tells a blind caller "not held" of his indicator, and a seat "not held" of a
        # card in the face-down pile, R8.3).
        if card == state.indicator and seat == state.caller and not state.revealed:
            message = f"seat {seat} played the indicator {card} before its reveal (R9.14.3)"
            raise self.fault(index, message, seat)
        try:
            self.state = deal_apply(state, PlayCard(seat, card))
        except IndicatorHiddenError:
            message = f"seat {seat} played the indicator {card} before its reveal (R9.14.3)"
            raise self.fault(index, message, seat) from None
        except CardNotHeldError:
            message = (
                f"seat {seat} played {card}, which was already played"
                if card in state.played
                else f"seat {seat} played {card}, which is not in that seat's hand"
            )
            raise self.fault(index, message, seat) from None
        except MustTrumpError as error:
            message = (
                f"seat {seat} played {card}, but it revealed holding no card of the suit led "
                f"and holds a {error.trump.singular} (R9.14.4)"
            )
            raise self.fault(index, message, seat) from None
        except IllegalActionError as error:
            raise self.fault(index, _play_fault(seat, card, error), seat) from None
        self._check_automatic_reveal()

    def _check_automatic_reveal(self) -> None:
        """R9.14.2.3: the engine reveals for a caller holding only the indicator; the record
        must say so at that very turn."""
        done = self.state.reveal
        if done is None or self.reveal_done:
            return
        if self.reveal != done:
            named = (
                "null"
                if self.reveal is None
                else f"at trick {self.reveal.trick}, seat {self.reveal.seat}"
            )
            raise self.fault(
                done.trick,
                f"seat {done.seat}'s only card left is the indicator, so trump is revealed on "
                f"this turn (R9.14.2.3), but the record's reveal is {named}",
                done.seat,
            )
        self.reveal_done = True

    def _finish(self) -> CourtPieceDeal:
        state, wanted = self.state, self.reveal
        if wanted is not None and not self.reveal_done:
            reachable = (
                self.is_last
                and not state.is_over
                and wanted.trick == len(state.tricks)
                and wanted.seat == state.to_act
            )
            if not reachable:
                raise self.fault(
                    wanted.trick,
                    f"the reveal by seat {wanted.seat} is at a turn the deal never reached",
                    wanted.seat,
                )
            self._recorded_reveal(wanted.trick, wanted.seat)
            state = self.state
        if not self.is_last and not state.is_over and max(state.side_tricks()) >= 7:
            index = len(state.tricks)
            raise self.fault(
                index,
                f"has only 0 of {PLAYERS} cards, but the deal must go on (R9.6.1, R9.12.5; "
                f"seat {state.leader} is due to lead)",
                state.leader,
            )
        return state
