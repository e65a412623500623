"""Finding hidden cards and secrets in what a client receives (R8.3), for the hidden-cards audit
(tests/live/test_hidden_cards_audit.py) and any test that wants the same check.

A match is recorded as it goes: after every change the driver of a test adds a :class:`Moment`
built from the engine's own state (holdings, discards, the stock, the cards played), never from
``games.engine.view``, which is what is under test. Each message a seat or a spectator receives
is then checked against the moment it was rendered at (its ``version``):

- a seat may see its own holding, its own hokm2-draw discards, the stock card it looks at on its
  own draw turn, and the cards played in the hand so far; a spectator only the cards played;
- the flips that chose the first Hakem are public and come from a shuffle of their own (R2.2,
  R2.6): they are cut out of the message, after checking they are exactly the stored flips;
- the events a frame lists are public and may be of an earlier hand: each is checked against the
  cards played in its own hand at its own version;
- no seed of the match or of a hand, and no field that holds a deal order or a face-down card
  (``deck``, ``first5``, ``revealed``, ...), appears anywhere.

Court Piece (R9) is read from its own engine state (``CourtPieceMatch``) the same way, with what
R9.15 adds: a seat sees its holding, the trick on the table and the finished tricks of the deal,
except under Double Sir, where they lie face down in the pile and only the trick just taken shows
until the next card is led; the indicator of hidden trump only once revealed, or under ``chosen``
by its caller (under ``blind`` not even he); and while trump is hidden from a receiver, no message
to him names its suit. The first-dealer flips (R9.2.1) are public like the first-Hakem flips, and
a finished deal is all visible in history (every card dealt, the indicator and the pile).

A card is found wherever a message can name one: its R1.2 text (``AS``) standing on its own, its
spoken name in English or Persian (``ace of spades``, the ``aria-label`` of a face), and the
printed corner index of a face (rank and suit symbol). The text pattern does not look inside
longer words (``player12``, ``KDE``), so a name or a word in a sentence that happens to hold a
card text is not taken for a card; a standalone one would be, and reported as a leak to look at.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.utils import translation

from games.engine import (
    FULL_DECK,
    CourtPieceDeal,
    CourtPieceMatch,
    HiddenTrump,
    MatchState,
    deal_seed,
    derive_seed,
    hand_seed,
)
from tests.engine.helpers import seat_may_see

#: A card's R1.2 text standing on its own: not inside a longer run of letters and digits.
CARD_TEXT = re.compile(r"(?<![0-9A-Za-z])([2-9TJQKA][SHDC])(?![0-9A-Za-z])")
#: The printed corner index of a card face (games/_card.html).
CORNER = re.compile(
    r'<span class="card__rank">([^<]*)</span><span class="card__suit">([^<]*)</span>'
)
_RANK_PRINTED = {"10": "T"}
_SUIT_OF_SYMBOL = {"\u2660": "S", "\u2665": "H", "\u2666": "D", "\u2663": "C"}
#: The first-Hakem flips on the live table (games/_table.html).
HAKEM_DRAW_HTML = re.compile(r'<details class="tool-details hakem-draw".*?</details>', re.DOTALL)
TABLE_VERSION = re.compile(r'<div id="table"[^>]*? data-version="(\d+)"')
#: Court Piece's table settings on the replay and the summary (R9.11): the ace caller's setting
#: names the ace of its suit (R9.16), the card the public first-dealer flips stop at.
SETTINGS_HTML = re.compile(r'<dl class="(?:rp-settings|summary-settings__list)".*?</dl>', re.DOTALL)
#: The trump on the live table (games/_match_trump.html): a suit's class once trump is shown.
TRUMP_HTML = re.compile(r'class="trump trump--([shdc])[ "]')
#: A deal still being played in the summary's table (games/match_summary.html), and a trump in it.
OPEN_DEAL_ROW = re.compile(r'<tr [^>]*class="deal-row[^"]*hand-row--open[^"]*".*?</tr>', re.DOTALL)
TRUMP_SUIT_HTML = re.compile(r'class="trump-suit')
REPLAY_DATA = re.compile(
    r'<script id="replay-data" type="application/json">(.*?)</script>', re.DOTALL
)

#: JSON keys that would hold a deal order, a seed or a face-down card. ``discards`` is the
#: revealed piles of every seat (``own_discards`` and ``discard_counts`` are what a view holds).
SECRET_KEYS = frozenset(
    {
        "seed",
        "seeds",
        "hand_seed",
        "deck",
        "holdings",
        "first5",
        "dealer5",
        "revealed",
        "discards",
        "stock",
        "stock_cards",
        "keep_first",
        "cards_at_start",
        "deal_seed",
        "blind_pick",
    }
)
#: The same names as words of an HTML page or fragment (``data-deck``, ids, text).
SECRET_WORDS = re.compile(
    r"(?<![0-9A-Za-z_])"
    r"(seed|seeds|hand_seed|deal_seed|blind_pick|deck|holdings|first5|dealer5|keep_first)"
    r"(?![0-9A-Za-z_])",
    re.IGNORECASE,
)

#: Runs of digits or hex digits long enough to hold a 63-bit seed written out.
_LONG_NUMBERS = re.compile(r"[0-9A-Fa-f]{8,}")


def _without_sentences(text: str) -> str:
    """A replay page without its script's fixed sentences (the data's ``text``, translated
    templates such as "the server seed revealed after the hand..."): words there are prose, not
    fields. Everything else of the page is scanned for the words of SECRET_WORDS."""
    found = REPLAY_DATA.search(text)
    if not found:
        return text
    data = json.loads(found.group(1))
    data.pop("text", None)
    return text[: found.start(1)] + json.dumps(data) + text[found.end(1) :]


def match_seeds(seed: int, *, hands: int = 64) -> set[int]:
    """Every seed a match's deals come from, as ``games.engine`` derives them: its own, the
    first-Hakem draw's (R2.6) and its hands' (R6.4); for Court Piece the first-dealer draw's
    (R9.2.1) and its deals' (R9.4.1), whose seed also picks the blind indicator (R9.14.1)."""
    return {
        seed,
        derive_seed(seed, "hakem-draw"),
        derive_seed(seed, "first-seat"),
        derive_seed(seed, "dealer-draw"),
        *(hand_seed(seed, n) for n in range(hands)),
        *(deal_seed(seed, n) for n in range(hands)),
    }


@dataclass(frozen=True)
class _Names:
    """How one language names cards: "ace of spades" in English, "آس پیک" in Persian."""

    suits: re.Pattern[str]  # any suit's name
    before: re.Pattern[str]  # a rank's name and the joining words, just before a suit's name
    cards: dict[tuple[str, str], str]  # (rank name, suit name): card text


def _names(language: str) -> _Names:
    """Rank and suit names as ``games.play.rendering.card_face`` joins them into labels: the 13
    labels of a suit end alike (" of spades"), the 4 of a rank begin alike ("ace of ")."""
    from os.path import commonprefix

    from games.play.rendering import card_face

    with translation.override(language):
        labels = {card: str(card_face(card).label) for card in FULL_DECK}

    def common_suffix(texts: list[str]) -> str:
        return commonprefix([text[::-1] for text in texts])[::-1]

    cards: dict[tuple[str, str], str] = {}
    for card, label in labels.items():
        rank_part = commonprefix([labels[c] for c in FULL_DECK if c.rank == card.rank])
        suit_part = common_suffix([labels[c] for c in FULL_DECK if c.suit == card.suit])
        join = len(rank_part) + len(suit_part) - len(label)  # the words shared by both parts
        cards[(rank_part[: len(rank_part) - join], suit_part[join:])] = card.text
        joining = suit_part[:join]
    assert len(cards) == len(FULL_DECK), language
    ranks = sorted({rank for rank, _ in cards}, key=len, reverse=True)
    suits = sorted({suit for _, suit in cards})
    return _Names(
        suits=re.compile("|".join(re.escape(name) for name in suits)),
        before=re.compile(
            "(?<![0-9])("
            + "|".join(re.escape(rank) for rank in ranks)
            + ")"
            + re.escape(joining)
            + "$"
        ),
        cards=cards,
    )


_NAMES: list[_Names] = []


def _languages() -> list[_Names]:
    if not _NAMES:
        _NAMES.extend(_names(language) for language in ("en", "fa"))
    return _NAMES


def cards_named(text: str) -> set[str]:
    """Every card ``text`` names: R1.2 texts, spoken names (English, Persian), printed corners.

    A spoken name is found from its suit's name, the rarer word, looking back for a rank's.
    """
    named = set(CARD_TEXT.findall(text))
    for names in _languages():
        for found in names.suits.finditer(text):
            start = found.start()
            rank = names.before.search(text, max(0, start - 20), start)
            if rank is not None:
                named.add(names.cards[(rank.group(1), found.group(0))])
    for rank, symbol in CORNER.findall(text):
        named.add(_RANK_PRINTED.get(rank, rank) + _SUIT_OF_SYMBOL[symbol])
    return named


def json_keys(value: Any) -> Iterable[str]:
    """Every key of every object in a JSON value."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from json_keys(item)
    elif isinstance(value, list):
        for item in value:
            yield from json_keys(item)


def values_of(value: Any, key: str) -> Iterable[Any]:
    """Every value of ``key`` in any object of a JSON value."""
    if isinstance(value, dict):
        for name, item in value.items():
            if name == key:
                yield item
            yield from values_of(item, key)
    elif isinstance(value, list):
        for item in value:
            yield from values_of(item, key)


def hakem_draw_cards(draw: dict[str, Any] | None) -> frozenset[str]:
    """The cards turned face up to choose the first Hakem (and his partner, R2.3)."""
    draw = draw or {}
    return frozenset([*draw.get("cards", []), *draw.get("partner_cards", [])])


@dataclass(frozen=True)
class Moment:
    """What each seat may see at one version of a match, from the engine's state."""

    version: int
    hand: int  # zero-based number of the hand (or deal) this version belongs to
    phase: str
    #: Face up to everyone in this hand: the cards played (Court Piece: those not face down in
    #: the Double Sir pile, and the indicator once revealed). A spectator's sight.
    played: frozenset[str]
    seats: tuple[frozenset[str], ...]  # per seat: its own cards, discards, stock card, played
    plays: int = 0  # cards played in this hand so far, face up or face down
    dealt: frozenset[str] = frozenset()  # every card of the hand: all shown once it is over
    #: Court Piece's hidden trump (R9.14): the receivers (seats, None the spectator) from whom
    #: the trump suit is hidden now.
    trump_hidden_from: frozenset[int | None] = frozenset()

    def sight(self, seat: int | None) -> frozenset[str]:
        return self.played if seat is None else self.seats[seat]


def moment_of(state: MatchState | CourtPieceMatch, *, version: int) -> Moment:
    """What R8.3 (R9.15) lets each seat see at ``version``, read from the state itself (not its
    views)."""
    if isinstance(state, CourtPieceMatch):
        return _court_piece_moment(state, version=version)
    hand = state.hand
    seats = tuple(frozenset(seat_may_see(hand, seat)) for seat in range(hand.players))
    return Moment(
        version=version,
        hand=len(state.results) - (1 if hand.is_over else 0),
        phase=hand.phase.value,
        played=frozenset(seat_may_see(hand, None)),
        seats=seats,
        plays=len(hand.played),
        dealt=frozenset().union(*seats),
    )


def court_piece_public(deal: CourtPieceDeal) -> set[str]:
    """R9.15.1: what every seat and spectator of a court-piece deal sees now: the trick on the
    table; the finished tricks, or under Double Sir (face down in the pile) only the trick just
    taken until the next card is led; the indicator once it is revealed (R9.14.2)."""
    shown = set(deal.current)
    if not deal.options.double_sir:
        shown.update(card for trick in deal.tricks for card in trick.cards)
    elif deal.tricks and not deal.current:
        shown.update(deal.tricks[-1].cards)
    if deal.indicator is not None and deal.revealed:
        shown.add(deal.indicator)
    return {card.text for card in shown}


def court_piece_may_see(deal: CourtPieceDeal, seat: int | None) -> set[str]:
    """R8.3, R9.15: the public cards, and a seat's own holding; the indicator before its reveal
    only to the caller under ``chosen`` (R9.14.1), never under ``blind``."""
    allowed = court_piece_public(deal)
    if seat is not None:
        allowed |= {card.text for card in deal.holdings[seat]}
        if (
            deal.indicator is not None
            and seat == deal.caller
            and deal.options.hidden_trump is HiddenTrump.CHOSEN
        ):
            allowed.add(deal.indicator.text)
    return allowed


def court_piece_trump_hidden_from(deal: CourtPieceDeal) -> frozenset[int | None]:
    """R9.14.1: until the reveal nobody but the caller under ``chosen`` knows trump; once the
    deal is over it is history (R9.15.1)."""
    if not deal.options.hidden or deal.revealed or deal.is_over:
        return frozenset()
    knows = {deal.caller} if deal.options.hidden_trump is HiddenTrump.CHOSEN else set()
    return frozenset({None, *range(deal.players)} - knows)


def _court_piece_moment(state: CourtPieceMatch, *, version: int) -> Moment:
    deal = state.deal
    played = [card for trick in deal.tricks for card in trick.cards] + list(deal.current)
    dealt = {card for holding in deal.holdings for card in holding} | set(played)
    if deal.indicator is not None:
        dealt.add(deal.indicator)
    return Moment(
        version=version,
        hand=state.deal_number,
        phase=deal.phase.value,
        played=frozenset(court_piece_may_see(deal, None)),
        seats=tuple(frozenset(court_piece_may_see(deal, seat)) for seat in range(deal.players)),
        plays=len(played),
        dealt=frozenset(card.text for card in dealt),
        trump_hidden_from=court_piece_trump_hidden_from(deal),
    )


@dataclass(frozen=True)
class Leak:
    """One card (or secret) a receiver got and may not see at that moment."""

    receiver: str
    kind: str
    version: int | None
    phase: str | None
    what: str
    excerpt: str

    def __str__(self) -> str:
        return (
            f"{self.receiver} got {self.what} in a {self.kind} message at version {self.version}"
            f" ({self.phase}): ...{self.excerpt}..."
        )


def _excerpt(text: str, needle: str) -> str:
    at = text.find(needle)
    if at < 0:
        return text[:160]
    return text[max(0, at - 100) : at + 60]


@dataclass
class Audit:
    """The moments of one match and the check of every message received while it is played.

    ``seeds`` are the match's seeds (:func:`match_seeds`; none may be sent while a hand they
    deal is being played); ``hakem_draw`` the stored first-Hakem flips, public (R2.2).
    """

    hakem_draw: dict[str, Any] | None
    seeds: set[int] = field(default_factory=set)
    #: Per version, the fair shuffles' server seeds (hex) still secret then (R8.4): of the hands
    #: being played and of the next hand's shuffle, committed to but not yet dealt.
    fair_secrets: dict[int, set[str]] = field(default_factory=dict)
    moments: dict[int, Moment] = field(default_factory=dict)
    leaks: list[Leak] = field(default_factory=list)
    messages: Counter[str] = field(default_factory=Counter)
    sizes: Counter[str] = field(default_factory=Counter)
    cards_seen: Counter[str] = field(default_factory=Counter)  # card names checked, by kind

    def moment_add(self, state: MatchState | CourtPieceMatch, *, version: int) -> Moment:
        moment = moment_of(state, version=version)
        self.moments[version] = moment
        return moment

    def moment(self, version: int) -> Moment:
        assert version in self.moments, f"a message of version {version}, which the test never saw"
        return self.moments[version]

    @property
    def latest(self) -> Moment:
        return self.moments[max(self.moments)]

    def _count(self, kind: str, text: str) -> None:
        self.messages[kind] += 1
        self.sizes[kind] += len(text.encode())

    def _leak(
        self, receiver: str, kind: str, moment: Moment | None, what: str, text: str, needle: str
    ) -> None:
        self.leaks.append(
            Leak(
                receiver=receiver,
                kind=kind,
                version=moment.version if moment else None,
                phase=moment.phase if moment else None,
                what=what,
                excerpt=_excerpt(text, needle),
            )
        )

    def _cards(
        self,
        receiver: str,
        kind: str,
        moment: Moment,
        text: str,
        allowed: frozenset[str],
    ) -> None:
        named = cards_named(text)
        self.cards_seen[kind] += len(named)
        for card in sorted(named - allowed):
            self._leak(receiver, kind, moment, f"the card {card}", text, card)

    def _secrets(self, receiver: str, kind: str, moment: Moment | None, text: str) -> None:
        runs = [run.lower() for run in _LONG_NUMBERS.findall(text)]
        if not runs:
            return
        if moment is not None:
            for secret in self.fair_secrets.get(moment.version, ()):
                if any(secret in run for run in runs):
                    self._leak(receiver, kind, moment, "a fair shuffle's server seed", text, secret)
        for seed in self.seeds:
            for shown in (str(seed), format(seed, "x")):
                if any(shown in run for run in runs):
                    self._leak(receiver, kind, moment, f"a seed ({shown})", text, shown)

    # -- JSON frames ------------------------------------------------------------------------

    def check_json(
        self,
        receiver: str,
        seat: int | None,
        text: str,
        *,
        echo: frozenset[str] = frozenset(),
    ) -> dict[str, Any]:
        """Check one frame of the JSON socket; returns it parsed. ``echo``: cards the receiver
        named itself in the message this frame answers (an error may repeat them)."""
        frame = json.loads(text)
        kind = f"json {frame['type']}"
        self._count(kind, text)
        moment = self.moment(frame["version"])
        self._secrets(receiver, kind, moment, text)
        for key in sorted(set(json_keys(frame)) & SECRET_KEYS):
            self._leak(receiver, kind, moment, f"the field {key!r}", text, f'"{key}"')
        data = frame["data"]
        if isinstance(data, dict):
            data = dict(data)
            view = data.get("view")
            if isinstance(view, dict):
                # The first-Hakem flips: public, from their own shuffle (R2.2, R2.6).
                view = dict(view)
                if view.pop("draw") != self.hakem_draw:
                    self._leak(receiver, kind, moment, "other first-Hakem flips", text, "draw")
                data["view"] = view
            for event in data.pop("events", None) or []:
                self._event(receiver, kind, event, text)
            if "event" in data:
                self._event(
                    receiver, kind, {"version": frame["version"], **data.pop("event")}, text
                )
        rest = json.dumps(data, ensure_ascii=False)
        if seat in moment.trump_hidden_from:
            self._trump(receiver, kind, moment, data, rest)
        self._cards(receiver, kind, moment, rest, moment.sight(seat) | echo)
        return frame

    def _trump(self, receiver: str, kind: str, moment: Moment, data: Any, text: str) -> None:
        """Under hidden trump (R9.14) no ``trump`` of the deal in play may be named to a
        receiver it is hidden from."""
        for suit in values_of(data, "trump"):
            if suit is not None:
                self._leak(receiver, kind, moment, f"the hidden trump {suit}", text, '"trump"')

    def _event(self, receiver: str, kind: str, event: dict[str, Any], text: str) -> None:
        """A public event, of this hand or an earlier one: only cards played by its version."""
        event = dict(event)
        moment = self.moment(event["version"])
        if "hand" in event and event["hand"] != moment.hand:
            self._leak(receiver, kind, moment, f"an event of hand {event['hand']}", text, "hand")
        if "hakem_draw" in event and event.pop("hakem_draw") != self.hakem_draw:
            self._leak(receiver, kind, moment, "other first-Hakem flips", text, "hakem_draw")
        shown = json.dumps(event, ensure_ascii=False)
        if None in moment.trump_hidden_from:
            self._trump(receiver, f"{kind} (events)", moment, event, shown)
        self._cards(receiver, f"{kind} (events)", moment, shown, moment.played)

    # -- HTML fragments and pages ------------------------------------------------------------

    def check_html(
        self,
        receiver: str,
        seat: int | None,
        text: str,
        *,
        kind: str,
        version: int,
        echo: frozenset[str] = frozenset(),
    ) -> int | None:
        """Check an HTML fragment or page, at the version of the table it holds (else
        ``version``, the receiver's latest); returns the table's version if it holds one."""
        self._count(kind, text)
        found = TABLE_VERSION.search(text)
        table_version = int(found.group(1)) if found else None
        moment = self.moment(table_version if table_version is not None else version)
        self._secrets(receiver, kind, moment, text)
        for word in sorted({w.lower() for w in SECRET_WORDS.findall(text)}):
            self._leak(receiver, kind, moment, f"the word {word!r}", text, word)
        flips = "".join(HAKEM_DRAW_HTML.findall(text))
        if flips:
            public = hakem_draw_cards(self.hakem_draw)
            for card in sorted(cards_named(flips) - public):
                self._leak(receiver, kind, moment, f"the flip {card}", text, card)
            text = HAKEM_DRAW_HTML.sub("", text)
        if seat in moment.trump_hidden_from:
            for suit in TRUMP_HTML.findall(text):
                self._leak(receiver, kind, moment, f"the hidden trump {suit}", text, "trump--")
        self._cards(receiver, kind, moment, text, moment.sight(seat) | echo)
        return table_version

    def check_history_page(self, receiver: str, text: str, *, kind: str) -> None:
        """A replay, summary or record page while the match is played: every card of a finished
        hand (R8.3: finished hands become fully visible), of the hand in play only the cards
        played by now (Court Piece: what a spectator sees, R9.15.1), hand by hand where the page
        says which hand; no hidden trump of the deal in play (R9.14)."""
        self._count(kind, text)
        moment = self.latest
        self._secrets(receiver, kind, moment, text)
        for word in sorted({w.lower() for w in SECRET_WORDS.findall(_without_sentences(text))}):
            self._leak(receiver, kind, moment, f"the word {word!r}", text, word)
        settings = "".join(SETTINGS_HTML.findall(text))
        if settings:
            last_flip = frozenset((self.hakem_draw or {}).get("cards", [])[-1:])
            for card in sorted(cards_named(settings) - last_flip):
                self._leak(receiver, kind, moment, f"the setting {card}", text, card)
            text = SETTINGS_HTML.sub("", text)
        visible_by_hand = self.visible_by_hand()
        finished = self.finished_hands()
        found = REPLAY_DATA.search(text)
        if found:
            data = json.loads(found.group(1))
            if data["revealed"] is not False:
                self._leak(receiver, kind, moment, "the hands face up", text, "revealed")
            for number, hand in enumerate(data["hands"]):
                # Each seat's cards and discards go in the data once the hand is over only.
                secret = SECRET_KEYS - ({"discards"} if number in finished else set())
                keys = secret | (set() if number in finished else {"cards"})
                for key in sorted(set(hand) & keys):
                    self._leak(receiver, kind, moment, f"the field {key!r}", text, f'"{key}"')
                shown = {card for trick in hand["tricks"] for card in trick["cards"]}
                shown |= {card for cards in hand.get("cards", []) for card in cards}
                for pile in hand.get("discards", []):
                    shown |= {*pile["discarded"], *pile["thrown"]}
                # Court Piece: a card face down in the Double Sir pile is null; the indicator.
                shown |= {(hand.get("hidden") or {}).get("card")}
                shown.discard(None)
                hides_trump = number == moment.hand and None in moment.trump_hidden_from
                if hides_trump and hand.get("trump") is not None:
                    self._leak(receiver, kind, moment, "the hidden trump", text, '"trump"')
                allowed = visible_by_hand.get(number, frozenset())
                self.cards_seen[f"{kind} (hand data)"] += len(shown)
                for card in sorted(shown - allowed):
                    self._leak(
                        receiver, kind, moment, f"the card {card} of hand {number}", text, card
                    )
        if None in moment.trump_hidden_from:
            for row in OPEN_DEAL_ROW.findall(text):
                if TRUMP_SUIT_HTML.search(row):
                    self._leak(receiver, kind, moment, "the hidden trump", row, "trump-suit")
        public = frozenset().union(*visible_by_hand.values())
        self._cards(receiver, kind, moment, text, public)

    def check_unchecked(self, kind: str, text: str) -> None:
        """Count a message that may show every card (a match over: R8.3, the record)."""
        self._count(kind, text)

    def finished_hands(self) -> set[int]:
        """The hands over by now: every hand before the latest, and the latest once decided."""
        latest = self.latest
        return set(range(latest.hand)) | ({latest.hand} if latest.phase == "done" else set())

    def visible_by_hand(self) -> dict[int, frozenset[str]]:
        """What a history page may show of each hand now: of a finished hand every card dealt
        (R8.3, R9.15.1), of the hand in play what everyone sees (the cards played, Court Piece's
        face-down pile and hidden indicator excepted)."""
        latest: dict[int, Moment] = {}
        for version in sorted(self.moments):
            latest[self.moments[version].hand] = self.moments[version]
        finished = self.finished_hands()
        return {
            number: moment.dealt if number in finished else moment.played
            for number, moment in latest.items()
        }
