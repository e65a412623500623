"""The hidden-cards audit (issue 8, R8.3, R9.15): whole matches of every variant, Court Piece
included, every seat a person whose moves the greedy computer player chooses from that person's
own JSON view, one spectator, and every byte each of them receives checked for a card it may not
see at that moment.

Each seat and the spectator hold the JSON protocol's socket for the whole match, and in one
match of four all of them also hold the htmx page's socket (in the others one of them does, in
turn: every page frame costs the server a whole table rendered). Every frame either socket gets
is checked with ``tests/leakcheck.py``: states on connect, after a ``resync`` and after a
reconnection with ``?since=``; events; acknowledgements; presence; chat; the error frames and
flash fragments of messages refused on purpose (out of turn, for another seat, a card not held,
not following suit, a stale version, a spectator acting, malformed frames, after the match is
over). Whoever has the page open also loads it whole, as a reload does, before the trump call,
after it, in the middle of the hand, at its end and at the end of the match; he and the spectator
load the replay, the summary and the record download before the first call and in the middle
of each hand (the download is refused while the match is played), and the spectator once more
when it is over. No seed of the match or of a hand, and no field of a deal order, may appear in
any of it.

Moves go over the sockets the way a browser or a program sends them, mostly JSON, some in the
page's flat form; in half the matches (every Court Piece one) a player leaves, the computer
plays his seat (``match_step``, as the worker does) and he comes back. Most matches are to 1
point; one in three rounds is to 2, so that hands follow one another (events of the hand before,
a new deal).

Court Piece (R9) is played under its table settings (R9.11), a mix per match in turn
(``COURT_PIECE_MIXES``: hidden trump chosen, blind and off, Double Sir with and without the ace
rule, goon court off, an ace caller), to 1 court in at most 1 deal, or to 2 in at most 2. Its
seats also ask for trump when they may (R9.14.2), so that indicators come face up mid-deal, or
play a random legal card rather than the greedy one; and they send its own refused messages:
trump asked for when it may not be, an indicator that is not among the caller's first five, the
caller under ``chosen`` playing his face-down indicator, and under ``blind`` the caller playing
the indicator he cannot see, which must be refused as any card he does not hold
(``card_not_held``, word for word), never telling him which card it is (R9.14.1, R8.3).

HOKM_AUDIT_MATCHES sets the number of matches, the variants in turn: 10 by default (each variant
twice, Court Piece under the first two mixes, blind and chosen hidden trump under Double Sir;
every kind of message and page, and a match to 2 points that needs a second hand). The full
audit of 100 matches is ``make audit-hidden-cards`` (``HOKM_AUDIT_MATCHES=100``), every mix
several times: too long for every CI run; docs/security.md has its figures. With ``-s`` the
messages, bytes and card names checked are printed by kind, with the time taken.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.test import Client
from django.utils import translation

from games.bots import greedy_action
from games.engine import (
    CourtPieceMatch,
    CourtPieceOptions,
    HiddenTrump,
    RevealTrump,
    Suit,
    court_piece_apply,
    court_piece_legal_actions,
    court_piece_match_view,
    get_variant,
    match_apply,
    match_legal_actions,
    match_view,
    new_court_piece_match,
    new_match,
    to_json,
)
from games.models import Hand, Match, MatchSeat, Table
from games.play.rendering import card_face, render_table
from games.play.selectors import match_state_build
from games.play.services import SeatSpec, match_create, match_step
from games.routing import websocket_urlpatterns
from tests.accounts.players import client_for
from tests.games.factories import UserFactory
from tests.leakcheck import HAKEM_DRAW_HTML, TABLE_VERSION, Audit, cards_named, match_seeds

pytestmark = pytest.mark.django_db(transaction=True)

APP = URLRouter(websocket_urlpatterns)
HOKM_VARIANTS = ("hokm4", "hokm3", "hokm2", "hokm2-draw")
VARIANTS = (*HOKM_VARIANTS, "court-piece")
MATCHES = int(os.environ.get("HOKM_AUDIT_MATCHES") or 10)
#: The table settings of R9.11 of the Court Piece matches, in turn: the default run plays the
#: first two (both hidden trumps, under Double Sir with and without the ace rule). The first
#: match of every variant has everyone's page open: the blind caller's refusals on the page too.
COURT_PIECE_MIXES = (
    CourtPieceOptions(
        double_sir=True, ace_rule=True, hidden_trump=HiddenTrump.BLIND, goon_court=False
    ),
    CourtPieceOptions(double_sir=True, hidden_trump=HiddenTrump.CHOSEN, ace_caller=Suit.HEARTS),
    CourtPieceOptions(ace_caller=Suit.SPADES),
    CourtPieceOptions(hidden_trump=HiddenTrump.BLIND, goon_court=False),
    CourtPieceOptions(double_sir=True, ace_rule=True, ace_caller=Suit.CLUBS),
    CourtPieceOptions(hidden_trump=HiddenTrump.CHOSEN, ace_caller=Suit.DIAMONDS),
)
#: A frame that does not come within this many seconds is a failure (CI machines are slow).
FRAME_TIMEOUT = 10
#: The languages of the four seats' and the spectator's browsers: both kinds of card names.
LANGUAGES = ("en", "fa", "en", "fa", "fa")


@pytest.fixture(autouse=True)
def _cached_templates(cached_templates) -> None:
    """Templates compiled once, as in production: the audit renders thousands of tables."""


@dataclass
class Receiver:
    """A person at the match (a seat, or the spectator), his sockets and his browser."""

    name: str
    seat: int | None
    user: Any
    language: str
    http: Client
    page: bool  # whether he has the htmx page open (its socket) in this match
    json: Any = None  # WebsocketCommunicator
    html: Any = None
    data: dict[str, Any] | None = None  # the latest state the JSON socket got
    json_version: int = -1
    html_version: int = -1
    acks: set[int] = field(default_factory=set)
    errors: list[dict[str, Any]] = field(default_factory=list)
    chats: int = 0


def _create(
    variant: str,
    target: int,
    seed: int,
    users: list,
    partner_draw: bool,
    options: CourtPieceOptions | None = None,
) -> Match:
    settings = options.to_json() if options is not None else {}
    table = Table.objects.create(
        name="audit", variant=variant, target=target, allow_spectators=True, options=settings
    )
    return match_create(
        variant=variant,
        target=target,
        # Half the matches dealt fairly (R8.4), as the site deals, from fresh server seeds: the
        # audit checks their seeds too; the others from the run's seed, reproducibly.
        seed=None if seed % 2 else seed,
        table=table,
        partner_draw=partner_draw,
        seats=[SeatSpec(name=u.username, user=u) for u in users],
        # Court Piece: the table's settings, and as many deals at most as courts to reach.
        options=settings or None,
        max_deals=target if options is not None else None,
    )


def _browser(user, language: str) -> Client:
    client = client_for(user)
    client.cookies["django_language"] = language
    return client


def _table_version(text: str) -> int | None:
    found = TABLE_VERSION.search(text)
    return int(found.group(1)) if found else None


class MatchRun:
    """One match driven through the sockets, every frame checked as it is read."""

    def __init__(
        self,
        *,
        variant: str,
        target: int,
        rng: random.Random,
        options: CourtPieceOptions | None = None,
    ) -> None:
        self.variant = variant
        self.rules = get_variant(variant)
        self.court = self.rules.family == "court-piece"
        self.options = options
        self.target = target
        self.rng = rng
        self.seq = 0
        self.left: int | None = None  # a seat whose person left it to the computer
        self.over = False
        self.state: Any = None  # the engine's state at the latest version (never a view)
        self.probed: set[tuple[int, str]] = set()  # Court Piece's own refusals, per deal
        self.reveals = 0  # reveals of hidden trump asked for over the sockets (R9.14.2)
        self.leaves = 0  # a person left his seat to the computer

    # -- the match as stored -------------------------------------------------------------------

    def _snapshot(self) -> int:
        match = Match.objects.get(pk=self.match_id)
        if match.version not in self.audit.moments:
            # The engine's own state (a CourtPieceMatch for Court Piece), never a view.
            self.state = match_state_build(match=match)
            self.audit.moment_add(self.state, version=match.version)
        self.audit.seeds.update(
            Hand.objects.filter(match=match, seed__isnull=False).values_list("seed", flat=True)
        )
        # A fair match (R8.4): the seeds of the hands still played, and of the next shuffle.
        secret = {
            fair["server_seed"]
            for fair, status in Hand.objects.filter(match=match)
            .exclude(fair={})
            .values_list("fair", "status")
            if status == Hand.Status.PLAYING
        }
        if match.next_fair:
            secret.add(match.next_fair["server_seed"])
        self.audit.fair_secrets[match.version] = secret
        self.over = match.status != Match.Status.PLAYING
        return match.version

    async def snapshot(self) -> None:
        """Record the match as it is now: the test makes one change at a time, so this is the
        moment of its version."""
        self.version = await database_sync_to_async(self._snapshot)()

    async def start(
        self, *, seed: int, partner_draw: bool, people: list, browsers: list[Client], pages: set
    ) -> None:
        """``people``: the seats' users, then the spectator's; ``pages``: the indexes among them
        of those who have the page open."""
        players = self.rules.players
        match = await database_sync_to_async(_create)(
            self.variant, self.target, seed, people[:players], partner_draw, self.options
        )
        self.match_id = match.pk
        self.audit = Audit(hakem_draw=match.hakem_draw, seeds=match_seeds(match.seed))
        await self.snapshot()
        # After a draw for partners (R2.3) the players sit in the order the draw gave.
        seated = await database_sync_to_async(
            lambda: list(match.seats.order_by("index").values_list("user_id", flat=True))
        )()
        index_of = {user.pk: index for index, user in enumerate(people)}
        order = [index_of[user_id] for user_id in seated] + [len(people) - 1]
        self.receivers = [
            Receiver(
                name=f"seat {seat}" if seat < players else "spectator",
                seat=seat if seat < players else None,
                user=people[index],
                language=LANGUAGES[index],
                http=browsers[index],
                page=index in pages,
            )
            for seat, index in enumerate(order)
        ]
        for receiver in self.receivers:
            await self.open_json(receiver)
            if receiver.page:
                await self.open_html(receiver)

    # -- sockets -------------------------------------------------------------------------------

    def _communicator(self, receiver: Receiver, *, api: bool, since: int | None) -> Any:
        path = f"/ws/{'api/' if api else ''}match/{self.match_id}/"
        if since is not None:
            path += f"?since={since}"
        headers = [(b"accept-language", receiver.language.encode())]
        communicator = WebsocketCommunicator(APP, path, headers=headers)
        communicator.scope["user"] = receiver.user
        return communicator

    async def open_json(self, receiver: Receiver, since: int | None = None) -> None:
        receiver.json = self._communicator(receiver, api=True, since=since)
        connected, _ = await receiver.json.connect(timeout=FRAME_TIMEOUT)
        assert connected
        frame = await self.read_json(receiver)
        assert frame["type"] == "state" and frame["data"]["seat"] == receiver.seat
        assert (await self.read_json(receiver))["type"] == "chat_history"

    async def open_html(self, receiver: Receiver, since: int | None = None) -> None:
        receiver.html = self._communicator(receiver, api=False, since=since)
        connected, _ = await receiver.html.connect(timeout=FRAME_TIMEOUT)
        assert connected
        assert 'id="table"' in await self.read_html(receiver)
        assert 'id="chat-log"' in await self.read_html(receiver)

    async def _known(self, version: int) -> None:
        """A frame of a version the test has not recorded yet: the change it made just now."""
        if version not in self.audit.moments:
            await self.snapshot()

    async def read_json(
        self, receiver: Receiver, echo: frozenset[str] = frozenset()
    ) -> dict[str, Any]:
        text = await receiver.json.receive_from(timeout=FRAME_TIMEOUT)
        await self._known(json.loads(text)["version"])
        frame = self.audit.check_json(receiver.name, receiver.seat, text, echo=echo)
        kind = frame["type"]
        if kind in ("state", "event"):
            assert frame["version"] >= receiver.json_version, "an older state after a newer one"
            receiver.json_version = frame["version"]
            receiver.data = frame["data"]
        elif kind == "ack":
            receiver.acks.add(frame["data"]["client_seq"])
        elif kind == "error":
            receiver.errors.append(frame["data"])
        elif kind == "chat":
            receiver.chats += 1
        return frame

    async def read_html(self, receiver: Receiver, echo: frozenset[str] = frozenset()) -> str:
        text = await receiver.html.receive_from(timeout=FRAME_TIMEOUT)
        start = text[:200]
        if 'id="table"' in start:
            kind = "html table"
        elif 'id="flash"' in start:
            kind = "html flash"
        elif 'id="chat-' in start:
            kind = "html chat"
        else:
            kind = "html other"
        found = _table_version(text)
        if found is not None:
            await self._known(found)
        version = self.audit.check_html(
            receiver.name,
            receiver.seat,
            text,
            kind=kind,
            version=receiver.html_version,
            echo=echo,
        )
        if version is not None:
            assert version >= receiver.html_version, "an older table after a newer one"
            receiver.html_version = version
        return text

    async def settle(self) -> None:
        """Every socket reads until it has the match's current version."""
        for receiver in self.receivers:
            while receiver.json_version < self.version:
                await self.read_json(receiver)
            while receiver.page and receiver.html_version < self.version:
                await self.read_html(receiver)

    async def drain(self, receiver: Receiver, *, page: bool) -> None:
        """Read whatever a socket has been sent (before it closes, so no frame goes unread)."""
        await asyncio.sleep(0.005)
        if page:
            while not receiver.html.output_queue.empty():
                await self.read_html(receiver)
        else:
            while not receiver.json.output_queue.empty():
                await self.read_json(receiver)

    # -- moves ---------------------------------------------------------------------------------

    @staticmethod
    def seat_view(receiver: Receiver) -> dict[str, Any]:
        view = receiver.data["view"]
        return view["deal"] if view["variant"] == "court-piece" else view["hand"]

    def to_act(self) -> int | None:
        return self.seat_view(self.receivers[-1])["to_act"]

    async def send_action(
        self, receiver: Receiver, action: dict[str, Any], *, version: int | None, page: bool
    ) -> int:
        self.seq += 1
        if page:
            # What the page's forms send: the flat form, numbers and booleans as strings.
            message: dict[str, Any] = {"type": "action", "client_seq": str(self.seq)}
            message["kind"] = action["type"]
            for key, value in action.items():
                if key not in ("type", "seat"):
                    message[key] = str(value).lower() if isinstance(value, bool) else value
            if version is not None:
                message["version"] = str(version)
            await receiver.html.send_to(text_data=json.dumps(message))
        else:
            message = {"type": "action", "client_seq": self.seq, "action": action}
            if version is not None:
                message["version"] = version
            await receiver.json.send_to(text_data=json.dumps(message))
        return self.seq

    async def move(self) -> None:
        """The seat on turn acts as the greedy player decides from its own JSON view; or the
        computer plays a seat whose person left, or the next hand is dealt, as the worker does."""
        seat = self.to_act()
        if self.audit.latest.phase == "done" or seat == self.left:
            assert await database_sync_to_async(match_step)(match=self.match_id, rush=True)
            await self.snapshot()
            await self.settle()
            return
        receiver = self.receivers[seat]
        action = self.choose(self.seat_view(receiver))
        page = receiver.page and self.rng.random() < 0.25
        before = self.version
        seq = await self.send_action(receiver, action, version=before, page=page)
        while receiver.json_version <= before:
            await self.read_json(receiver)
        await self.settle()
        assert self.version == before + 1
        if not page:
            assert seq in receiver.acks

    def choose(self, view: dict[str, Any]) -> dict[str, Any]:
        """The greedy player's action from the seat's own view; in Court Piece sometimes a
        random legal one instead, and trump asked for, when the seat may, half the time (the
        caller, who may reveal on any turn, less often), so that reveals come mid-deal."""
        if self.court:
            legal = [{k: v for k, v in a.items() if k != "seat"} for a in view["legal"]]
            if {"type": "reveal_trump"} in legal:
                chance = 0.15 if view["seat"] == view["caller"] else 0.5
                if self.rng.random() < chance:
                    self.reveals += 1
                    return {"type": "reveal_trump"}
            if self.rng.random() < 0.3:
                return self.rng.choice([a for a in legal if a["type"] != "reveal_trump"])
        action = to_json(greedy_action(view))
        self.reveals += action["type"] == "reveal_trump"  # the greedy player asks too
        return action

    # -- messages refused on purpose -----------------------------------------------------------

    async def expect_error(
        self, receiver: Receiver, *, page: bool, echo: frozenset[str] = frozenset()
    ) -> dict[str, Any] | None:
        """The refusal of the last message: its error frame, or the page's flash fragment."""
        if page:
            while 'id="flash"' not in (await self.read_html(receiver, echo=echo))[:200]:
                pass
            return None
        count = len(receiver.errors)
        while len(receiver.errors) == count:
            await self.read_json(receiver, echo=echo)
        return receiver.errors[-1]

    def hidden_from(self, seat: int) -> list[str]:
        """The cards ``seat`` may not see now: other seats', the stock's, those not dealt (Court
        Piece: and the Double Sir pile, the indicator but to the caller under chosen)."""
        return sorted({card.text for card in self.rules.deck} - self.audit.latest.seats[seat])

    def not_held_message(self, card: str) -> str:
        """What ``card_not_held`` says of a card: "already played" of a card every seat sees
        played; of a card face down in the Double Sir pile, as of any other hidden card, just
        "not held", so that the refusal does not tell what the pile hides (R9.15.1)."""
        gone = set()
        if self.court:
            deal = self.state.deal
            gone = {c.text for c in deal.current}
            if not deal.options.double_sir:
                gone |= {c.text for trick in deal.tricks for c in trick.cards}
            elif deal.tricks and not deal.current:
                gone |= {c.text for c in deal.tricks[-1].cards}
        return f"{card} was already played" if card in gone else f"you do not hold {card}"

    async def probe(self) -> None:
        """One message that is refused, or answered, and must show no hidden card."""
        latest = self.audit.latest
        kinds = ["resync", "reconnect", "ping", "spectator", "bad"]
        if latest.phase != "done" and self.to_act() != self.left:
            kinds += ["out_of_turn", "wrong_seat", "not_held", "follow", "stale"]
            if self.court:
                kinds += ["reveal"]
        kind = self.rng.choice(kinds)
        if kind == "reveal":
            seats = [r for r in self.receivers[: self.rules.players] if r.seat != self.left]
            await self.ask_for_trump(self.rng.choice(seats))
            return
        to_act = self.to_act()
        receiver = (
            self.receivers[to_act]
            if kind in ("not_held", "follow", "stale")
            else self.receivers[-1]
            if kind == "spectator"
            else self.rng.choice(self.receivers)
        )
        if kind in ("out_of_turn", "wrong_seat"):
            seat = self.rng.choice([s for s in range(self.rules.players) if s != to_act])
            receiver = self.receivers[seat]
        page = receiver.page and self.rng.random() < 0.4
        if kind == "out_of_turn":
            own = self.seat_view(receiver).get("hand") or []
            action = (
                {"type": "play_card", "card": self.rng.choice(own)}
                if own and latest.phase == "play"
                else {"type": "call_trump", "suit": "S"}
            )
            await self.send_action(receiver, action, version=self.version, page=page)
            error = await self.expect_error(receiver, page=page)
            assert error is None or error["code"] in ("not_your_turn", "wrong_phase"), error
        elif kind == "wrong_seat":
            action = {"type": "call_trump", "suit": "H", "seat": to_act}
            await self.send_action(receiver, action, version=None, page=False)
            error = await self.expect_error(receiver, page=False)
            assert error["code"] == "wrong_seat", error
        elif kind == "not_held":
            hidden = self.hidden_from(to_act)
            if not hidden:
                return
            card = self.rng.choice(hidden)
            action = {"type": "play_card", "card": card}
            await self.send_action(receiver, action, version=self.version, page=page)
            # The refusal may repeat the card the player named himself; and it must not tell
            # whether another seat holds it or nobody does (the stock, cards not dealt).
            error = await self.expect_error(receiver, page=page, echo=frozenset([card]))
            if error is not None and latest.phase == "play":
                assert error == {
                    "code": "card_not_held",
                    "message": self.not_held_message(card),
                    "client_seq": self.seq,
                }
        elif kind == "follow":
            view = self.seat_view(receiver)
            legal = {a.get("card") for a in view["legal"]}
            wrong = [card for card in view["hand"] if card not in legal]
            if latest.phase != "play" or not wrong:
                return
            action = {"type": "play_card", "card": self.rng.choice(wrong)}
            await self.send_action(receiver, action, version=None, page=page)
            error = await self.expect_error(receiver, page=page)
            # Court Piece: a seat that asked for trump holding no card of the suit led must
            # trump (R9.14.4).
            assert error is None or error["code"] in ("must_follow_suit", "must_trump"), error
        elif kind == "stale":
            action = to_json(greedy_action(self.seat_view(receiver)))
            await self.send_action(receiver, action, version=self.version - 1, page=page)
            error = await self.expect_error(receiver, page=page)
            assert error is None or error["code"] == "stale_version", error
            # A fresh state follows the refusal.
            if page:
                while _table_version(await self.read_html(receiver)) is None:
                    pass
            else:
                while (await self.read_json(receiver))["type"] != "state":
                    pass
        elif kind == "spectator":
            card = self.rng.choice(sorted(latest.played) or ["AS"])
            await self.send_action(
                receiver, {"type": "play_card", "card": card}, version=self.version, page=page
            )
            error = await self.expect_error(receiver, page=page, echo=frozenset([card]))
            assert error is None or error["code"] == "not_seated", error
        elif kind == "resync":
            message = json.dumps({"type": "resync", "since": self.rng.randint(0, self.version)})
            if page:
                await receiver.html.send_to(text_data=message)
                while _table_version(await self.read_html(receiver)) is None:
                    pass
            else:
                await receiver.json.send_to(text_data=message)
                while (await self.read_json(receiver))["type"] != "state":
                    pass
        elif kind == "reconnect":
            since = self.rng.randint(0, self.version)
            await self.drain(receiver, page=page)
            if page:
                await receiver.html.disconnect()
                await self.open_html(receiver, since=since)
            else:
                await receiver.json.disconnect()
                await self.open_json(receiver, since=since)
        elif kind == "ping":
            await receiver.json.send_to(text_data='{"type": "ping"}')
            while (await self.read_json(receiver))["type"] != "pong":
                pass
        elif kind == "bad":
            if page:
                await receiver.html.send_to(text_data="{not json")
            else:
                await receiver.json.send_to(bytes_data=b"\x00\x01")
            await self.expect_error(receiver, page=page)

    # -- Court Piece's own refusals (R9.14) --------------------------------------------------------

    async def ask_for_trump(self, receiver: Receiver) -> None:
        """A seat asks for trump when its view does not offer it: refused, and the refusal says
        why in words about the asker's own cards and turn only."""
        if {"type": "reveal_trump", "seat": receiver.seat} in self.seat_view(receiver)["legal"]:
            return
        page = receiver.page and self.rng.random() < 0.4
        await self.send_action(receiver, {"type": "reveal_trump"}, version=self.version, page=page)
        error = await self.expect_error(receiver, page=page)
        allowed = ("not_your_turn", "wrong_phase", "reveal_not_allowed")
        assert error is None or error["code"] in allowed, error

    async def court_piece_probes(self) -> None:
        """Once a deal, when it comes about: a wrong indicator under ``chosen`` (R9.14.1); the
        caller playing his face-down indicator, under ``chosen`` (``indicator_hidden``, he
        sees it) and under ``blind`` (``card_not_held`` exactly as for any card he does not
        hold, so that he never learns which card it is); trump asked for by the seat on turn
        when it may not ask (R9.14.2)."""
        deal, latest = self.state.deal, self.audit.latest
        seat = deal.to_act
        if self.over or seat is None or seat == self.left:
            return
        receiver = self.receivers[seat]
        hidden = deal.options.hidden_trump
        todo = []
        if deal.phase.value == "call" and hidden is HiddenTrump.CHOSEN:
            todo.append("indicator")
        if deal.phase.value == "play" and seat == deal.caller and not deal.revealed:
            if hidden is HiddenTrump.BLIND:
                todo.append("blind")
            elif hidden is HiddenTrump.CHOSEN:
                todo.append("chosen")
        legal = self.seat_view(receiver)["legal"]
        if deal.phase.value == "play" and {"type": "reveal_trump", "seat": seat} not in legal:
            todo.append("reveal")
        for kind in todo:
            if (latest.hand, kind) in self.probed:
                continue
            self.probed.add((latest.hand, kind))
            if kind == "reveal":
                await self.ask_for_trump(receiver)
            elif kind == "indicator":
                # A card he does not hold, from the cards he may not see.
                card = self.rng.choice(self.hidden_from(seat))
                await self.send_action(
                    receiver,
                    {"type": "choose_indicator", "card": card},
                    version=self.version,
                    page=False,
                )
                error = await self.expect_error(receiver, page=False, echo=frozenset([card]))
                assert error == {
                    "code": "invalid_indicator",
                    "message": f"{card} is not one of your first 5 cards",
                    "client_seq": self.seq,
                }
            elif kind == "chosen":
                card = deal.indicator.text
                await self.send_action(
                    receiver, {"type": "play_card", "card": card}, version=self.version, page=False
                )
                error = await self.expect_error(receiver, page=False)
                assert error is not None and error["code"] == "indicator_hidden", error
            elif kind == "blind":
                await self.blind_indicator(receiver)

    async def blind_indicator(self, receiver: Receiver) -> None:
        """Under ``blind`` the caller plays the indicator nobody has seen, and a card another
        seat holds: both refusals read alike but for the card he named (R9.14.1, R8.3), in the
        JSON protocol and on the page."""
        deal = self.state.deal
        indicator = deal.indicator.text
        assert indicator in self.hidden_from(receiver.seat)
        others = [c for c in self.hidden_from(receiver.seat) if c != indicator]
        other = self.rng.choice([c for c in others if "already" not in self.not_held_message(c)])
        answers = {}
        for card in (indicator, other):
            action = {"type": "play_card", "card": card}
            await self.send_action(receiver, action, version=self.version, page=False)
            error = await self.expect_error(receiver, page=False, echo=frozenset([card]))
            assert error == {
                "code": "card_not_held",
                "message": f"you do not hold {card}",
                "client_seq": self.seq,
            }, error
            if receiver.page:
                await self.send_action(receiver, action, version=self.version, page=True)
                answers[card] = await self.flash(receiver, echo=frozenset([card]))
        if receiver.page:
            self.probed.add((self.audit.latest.hand, "blind on the page"))
            assert answers[indicator] == answers[other].replace(other, indicator), answers

    async def flash(self, receiver: Receiver, echo: frozenset[str] = frozenset()) -> str:
        """The page's next ``#flash`` fragment: a refusal as the player reads it."""
        while True:
            text = await self.read_html(receiver, echo=echo)
            if 'id="flash"' in text[:200]:
                return text

    # -- pages -----------------------------------------------------------------------------------

    def _get(self, receiver: Receiver, path: str) -> tuple[int, str]:
        response = receiver.http.get(path)
        return response.status_code, response.content.decode()

    async def live_pages(self) -> None:
        """Everyone with the page open loads it again, as a reload does."""
        for receiver in self.receivers:
            if not receiver.page:
                continue
            status, body = await database_sync_to_async(self._get)(
                receiver, f"/match/{self.match_id}/"
            )
            assert status == 200
            self.audit.check_html(
                receiver.name, receiver.seat, body, kind="page match", version=self.version
            )

    async def history_pages(self, receivers: list[Receiver]) -> None:
        """Replay, summary and record download: while the match is played, the cards played
        only, and no record (R8.3); once it is over everything, which is not checked."""
        for receiver in receivers:
            for what in ("replay", "summary", "record"):
                status, body = await database_sync_to_async(self._get)(
                    receiver, f"/match/{self.match_id}/{what}/"
                )
                if self.over:
                    assert status == 200
                    self.audit.check_unchecked(f"page {what} (match over)", body)
                else:
                    assert status == (403 if what == "record" else 200), (what, status)
                    self.audit.check_history_page(receiver.name, body, kind=f"page {what}")

    # -- the whole match -----------------------------------------------------------------------

    async def play(self) -> None:
        # Court Piece's seats are always left once: its computer players stand in (R8.1).
        leave = self.rng.random() < 0.5 or self.court
        leave_at = self.rng.randint(3, 20) if leave else None
        back_at = (leave_at or 0) + self.rng.randint(2, 8)
        chat_at = self.rng.randint(1, 15)
        await self.live_pages()  # before the trump call
        # Replays and summaries differ by viewer only in whose seat is at the bottom: the
        # spectator and one seat load them, everyone in a match where all have the page open.
        self.readers = [r for r in self.receivers if r.page or r.seat is None]
        await self.history_pages(self.readers)
        waiting = "call"
        plies = 0
        while not self.over:
            if self.court:
                await self.court_piece_probes()
            hand = self.audit.latest.hand
            await self.move()
            plies += 1
            latest = self.audit.latest
            if self.over:
                break
            if latest.hand != hand:
                waiting = "call"
                await self.live_pages()  # a new deal, before its trump call
            elif latest.phase == "done":
                await self.live_pages()  # the hand is decided
            elif waiting == "call" and latest.phase != "call":
                waiting = "middle"
                await self.live_pages()  # just after the call
            elif waiting == "middle" and latest.plays > self.rules.players * 3:
                waiting = ""
                await self.live_pages()  # in the middle of the hand
                await self.history_pages(self.readers)
            if self.rng.random() < 0.3:
                await self.probe()
            if plies == chat_at:
                await self.chat()
            if plies == leave_at and latest.phase != "done":
                await self.leave()
            elif self.left is not None and plies >= back_at:
                await self.back()
        await self.after_the_end()

    async def chat(self) -> None:
        receiver = self.receivers[self.rng.randrange(self.rules.players)]
        await receiver.json.send_to(text_data='{"type": "chat", "phrase": "well_played"}')
        for other in self.receivers:
            count = other.chats
            while other.chats == count:
                await self.read_json(other)
            while other.page and 'id="chat-log"' not in (await self.read_html(other))[:200]:
                pass

    async def leave(self) -> None:
        """A player leaves the match to the computer (R8.1); his sockets stay open."""
        receiver = self.receivers[self.rng.randrange(self.rules.players)]
        before = self.version
        await receiver.json.send_to(text_data='{"type": "leave"}')
        while receiver.json_version <= before:
            await self.read_json(receiver)
        self.left = receiver.seat
        self.leaves += 1
        await self.settle()

    async def back(self) -> None:
        """He takes his seat back, from the page when he has it open."""
        receiver = self.receivers[self.left]
        before = self.version
        if receiver.page:
            await receiver.html.send_to(text_data='{"type": "back"}')
            while receiver.html_version <= before:
                await self.read_html(receiver)
        else:
            await receiver.json.send_to(text_data='{"type": "back"}')
            while receiver.json_version <= before:
                await self.read_json(receiver)
        self.left = None
        await self.settle()

    async def after_the_end(self) -> None:
        await self.live_pages()  # the match is over
        await self.history_pages(self.receivers[-1:])
        # An action after the end is refused, and says why.
        receiver = self.receivers[0]
        await self.send_action(
            receiver, {"type": "call_trump", "suit": "S"}, version=None, page=False
        )
        error = await self.expect_error(receiver, page=False)
        assert error["code"] == "match_over", error
        for receiver in self.receivers:
            await self.drain(receiver, page=False)
            await receiver.json.disconnect()
            if receiver.page:
                await self.drain(receiver, page=True)
                await receiver.html.disconnect()


async def test_no_message_shows_a_card_its_receiver_may_not_see_R8_3(settings, capsys):
    # The players act the instant it is their turn, far faster than people or the rate limit.
    settings.HOKM_SOCKET_RATE_PER_SECOND = 10_000
    started = time.monotonic()
    hokm_rng = random.Random(83)
    # Court Piece draws from its own: the Hokm matches are the same with it or without it.
    court_rng = random.Random(9)
    people = [
        await database_sync_to_async(UserFactory)(username=f"audit{index}") for index in range(5)
    ]
    browsers = [
        await database_sync_to_async(_browser)(user, LANGUAGES[index])
        for index, user in enumerate(people)
    ]
    messages: Counter[str] = Counter()
    sizes: Counter[str] = Counter()
    cards: Counter[str] = Counter()
    played: Counter[str] = Counter()
    court: Counter[str] = Counter()  # Court Piece: settings played, reveals, refusals sent
    seconds: Counter[str] = Counter()
    hands = 0
    for number in range(MATCHES):
        match_started = time.monotonic()
        variant = VARIANTS[number % len(VARIANTS)]
        rounds = number // len(VARIANTS)
        players = get_variant(variant).players
        options, rng = None, hokm_rng
        if variant == "court-piece":
            options = COURT_PIECE_MIXES[rounds % len(COURT_PIECE_MIXES)]
            rng = court_rng
        run = MatchRun(
            variant=variant, target=2 if rounds % 3 == 1 else 1, rng=rng, options=options
        )
        at_table = people[:players] + people[-1:]
        everyone = rounds % 4 == 0
        await run.start(
            seed=rng.getrandbits(63),
            partner_draw=variant == "hokm4" and rounds % 2 == 1,
            people=at_table,
            browsers=browsers[:players] + browsers[-1:],
            pages=set(range(players + 1)) if everyone else {rounds % (players + 1)},
        )
        await run.play()
        leaks = run.audit.leaks
        assert not leaks, f"match {number + 1} ({variant}): " + "\n".join(map(str, leaks[:20]))
        messages.update(run.audit.messages)
        sizes.update(run.audit.sizes)
        cards.update(run.audit.cards_seen)
        played[variant] += 1
        seconds[variant] += time.monotonic() - match_started
        hands += 1 + max(moment.hand for moment in run.audit.moments.values())
        if options is not None:
            court.update(await database_sync_to_async(_court_piece_figures)(run, options))
    elapsed = time.monotonic() - started
    total = sum(messages.values())
    with capsys.disabled():
        print(
            f"\nhidden-cards audit: {MATCHES} matches {dict(played)}, {hands} hands,"
            f" {total} messages, {sum(sizes.values())} bytes, {elapsed:.1f} s"
        )
        for kind in sorted(messages):
            print(f"  {kind:32} {messages[kind]:7} messages {sizes[kind]:11} bytes")
        for kind in sorted(cards):
            print(f"  card names checked in {kind:36} {cards[kind]:8}")
        print("  seconds by variant: " + ", ".join(f"{k} {v:.1f}" for k, v in seconds.items()))
        if court:
            print("  court-piece: " + ", ".join(f"{k} {v}" for k, v in sorted(court.items())))
    assert set(played) == set(VARIANTS[: min(MATCHES, len(VARIANTS))])
    if played["court-piece"]:
        # Trump came face up mid-deal, asked for over the sockets; each hidden trump's own
        # refusals were sent (R9.14).
        assert court["reveals asked"] >= 1 and court["deals revealed"] >= 1, court
        assert court["seats left to the computer"] >= 1, court
        for mode, probes in (("chosen", ("indicator", "chosen")), ("blind", ("blind",))):
            if court[f"hidden {mode}"]:
                assert all(court[f"probe {probe}"] for probe in probes), court
    assert hands > MATCHES  # some matches to 2 points had a second hand
    assert total >= 300 * MATCHES


def _court_piece_figures(run: MatchRun, options: CourtPieceOptions) -> Counter[str]:
    """What a Court Piece match of the audit went through: its settings, deals, reveals and the
    refusals of its own sent on purpose."""
    figures: Counter[str] = Counter()
    figures[f"hidden {options.hidden_trump.value}"] += 1
    figures["double sir"] += options.double_sir
    figures["ace rule"] += options.ace_rule
    figures["goon court off"] += not options.goon_court
    figures["ace caller"] += options.ace_caller is not None
    deals = Hand.objects.filter(match_id=run.match_id)
    figures["deals"] += deals.count()
    figures["deals revealed"] += deals.filter(reveal__isnull=False).count()
    figures["reveals asked"] += run.reveals
    figures["seats left to the computer"] += run.leaves
    for _deal, kind in run.probed:
        figures[f"probe {kind}"] += 1
    return figures


# -- the checker finds what it looks for ---------------------------------------------------------


def _mid_hand(variant: str, seed: int):
    """A match of ``variant`` in the middle of its first hand, played at random."""
    rng = random.Random(seed)
    state = new_match(get_variant(variant), seed=seed, target=1)
    while len(state.hand.played) < 5:
        state = match_apply(state, rng.choice(match_legal_actions(state)))
    return state


@pytest.mark.parametrize("variant", HOKM_VARIANTS)
def test_the_checker_finds_a_hidden_card_in_every_form_a_message_can_name_it(variant):
    """The audit would be worthless if it could not see a leak: one seat's view sent to
    another, or to the spectator, is caught in JSON and in HTML of both languages, and so is a
    card named only by its spoken name or its printed corner, a seed, or a field of the deal."""
    seed = 1234567890123
    state = _mid_hand(variant, seed)
    audit = Audit(hakem_draw=state.draw.to_json(), seeds=match_seeds(seed))
    moment = audit.moment_add(state, version=9)
    match = Match(pk=7, variant=variant, target=1, version=9)
    seats = [MatchSeat(match=match, index=i, name=f"p{i}") for i in range(state.variant.players)]

    def frame(seat: int | None, **extra) -> str:
        data = {"view": match_view(state, seat), **extra}
        return json.dumps({"type": "event", "version": 9, "data": data})

    def leaked(before: int) -> set[str]:
        return {leak.what.removeprefix("the card ") for leak in audit.leaks[before:]}

    # What each may see passes.
    for seat in [*range(state.variant.players), None]:
        audit.check_json("r", seat, frame(seat))
        for language in ("en", "fa"):
            with translation.override(language):
                html = render_table(match=match, seats=seats, state=state, seat=seat)
            audit.check_html("r", seat, html, kind="html", version=9)
    assert audit.leaks == []
    # Seat 1's cards (and discards) shown to seat 0 or to the spectator are found.
    for seat in (0, None):
        other = moment.seats[1] - moment.sight(seat)
        assert len(other) >= 8
        count = len(audit.leaks)
        audit.check_json("r", seat, frame(1))
        assert leaked(count) == other
        for language in ("en", "fa"):
            with translation.override(language):
                html = render_table(match=match, seats=seats, state=state, seat=1)
            count = len(audit.leaks)
            audit.check_html("r", seat, html, kind="html", version=9)
            assert leaked(count) == other
    # A card named only by its spoken name, or only by its printed corner, is found too.
    card = sorted(moment.seats[1] - moment.seats[0])[0]
    for language in ("en", "fa"):
        with translation.override(language):
            face = card_face(card)
        count = len(audit.leaks)
        audit.check_html("r", 0, f"<p>{face.label}</p>", kind="html", version=9)
        corner = (
            f'<span class="card__rank">{face.rank}</span>'
            f'<span class="card__suit">{face.suit.symbol}</span>'
        )
        audit.check_html("r", 0, corner, kind="html", version=9)
        assert [leak.what for leak in audit.leaks[count:]] == [f"the card {card}"] * 2
    # Seeds and the fields of a deal, wherever they are.
    count = len(audit.leaks)
    audit.check_json("r", 0, frame(0, clock={"deck": []}))
    audit.check_json("r", 0, frame(0, note=f"x{state.hand_seed}"))
    audit.check_html("r", 0, f"<i data-x='{format(seed, 'x')}'></i>", kind="html", version=9)
    audit.check_html("r", 0, '<i data-deck="1"></i>', kind="html", version=9)
    assert [leak.what.split(" (")[0] for leak in audit.leaks[count:]] == [
        "the field 'deck'",
        "a seed",
        "a seed",
        "the word 'deck'",
    ]


COURT_PIECE_CHECKS = {
    "chosen-double-sir": CourtPieceOptions(double_sir=True, hidden_trump=HiddenTrump.CHOSEN),
    "blind-double-sir-ace-rule": CourtPieceOptions(
        double_sir=True, ace_rule=True, hidden_trump=HiddenTrump.BLIND
    ),
    "off-double-sir": CourtPieceOptions(double_sir=True, ace_caller=Suit.CLUBS),
    "blind": CourtPieceOptions(hidden_trump=HiddenTrump.BLIND),
}


def _mid_deal(options: CourtPieceOptions, seed: int) -> CourtPieceMatch:
    """A court-piece match in its first deal, played at random and nobody asking for trump, at
    the second card of its fourth trick: three tricks lie in the Double Sir pile, face down."""
    rng = random.Random(seed)
    state = new_court_piece_match(options, seed=seed, target=1)
    while len(state.deal.tricks) < 3 or len(state.deal.current) < 2:
        legal = court_piece_legal_actions(state)
        state = court_piece_apply(
            state, rng.choice([a for a in legal if not isinstance(a, RevealTrump)])
        )
    return state


@pytest.mark.parametrize("name", list(COURT_PIECE_CHECKS))
def test_the_checker_finds_a_hidden_indicator_and_a_double_sir_pile_card_R9_15(name):
    """The same proof for Court Piece: each seat's and the spectator's own view passes; the
    indicator laid face down (seen by nobody under blind, by its caller alone under chosen), a
    card face down in the Double Sir pile and the hidden trump suit are found wherever they are
    planted: JSON, an event, the table in both languages, a spoken name, a printed corner, the
    replay's data; and the caller's own view shown to the others."""
    options = COURT_PIECE_CHECKS[name]
    seed = 9876543210987
    state = _mid_deal(options, seed)
    deal = state.deal
    audit = Audit(hakem_draw=state.draw.to_json(), seeds=match_seeds(seed))
    moment = audit.moment_add(state, version=9)
    match = Match(pk=7, variant="court-piece", target=1, version=9, options=options.to_json())
    seats = [MatchSeat(match=match, index=i, name=f"p{i}") for i in range(4)]
    caller = deal.caller
    receivers = [*range(4), None]
    # The indicator and trump are hidden from everyone but the caller under chosen.
    sighted = {caller} if options.hidden_trump is HiddenTrump.CHOSEN else set()
    blind_to_indicator = [r for r in receivers if r not in sighted] if options.hidden else []
    pile = {card.text for trick in deal.tricks for card in trick.cards}
    if options.double_sir:
        assert pile and not pile & moment.played
    if options.hidden:
        assert not deal.revealed and deal.indicator is not None
        assert set(moment.trump_hidden_from) == set(blind_to_indicator)

    def frame(seat: int | None, **extra) -> str:
        data = {"view": court_piece_match_view(state, seat), **extra}
        return json.dumps({"type": "event", "version": 9, "data": data})

    def table(seat: int | None, language: str) -> str:
        with translation.override(language):
            return render_table(match=match, seats=seats, state=state, seat=seat)

    def leaked(before: int) -> set[str]:
        return {leak.what.removeprefix("the card ") for leak in audit.leaks[before:]}

    # What each may see passes, the seed's derivations aside.
    for seat in receivers:
        audit.check_json("r", seat, frame(seat))
        for language in ("en", "fa"):
            audit.check_html("r", seat, table(seat, language), kind="html", version=9)
    assert audit.leaks == []
    # A card face down in the pile, or the hidden indicator, planted in what a receiver gets.
    planted = sorted(pile) if options.double_sir else []
    for seat in receivers:
        cards = [*planted]
        if seat in blind_to_indicator:
            cards.append(deal.indicator.text)
        for card in cards:
            count = len(audit.leaks)
            audit.check_json("r", seat, frame(seat, note=f"{card}"))
            event = {"version": 9, "hand": 0, "seat": 0, "card": card}
            audit.check_json("r", seat, frame(seat, event=event))
            for language in ("en", "fa"):
                with translation.override(language):
                    face = card_face(card)
                audit.check_html("r", seat, f"<p>{face.label}</p>", kind="html", version=9)
                corner = (
                    f'<span class="card__rank">{face.rank}</span>'
                    f'<span class="card__suit">{face.suit.symbol}</span>'
                )
                audit.check_html("r", seat, corner, kind="html", version=9)
            assert [leak.what for leak in audit.leaks[count:]] == [f"the card {card}"] * 6
    if options.hidden:
        # The caller's own view (his holding, and under chosen his indicator and trump) sent
        # to another seat or to the spectator is found, trump included, in JSON and HTML.
        indicator, trump = deal.indicator.text, deal.trump.value
        for seat in (s for s in receivers if s != caller):
            count = len(audit.leaks)
            audit.check_json("r", seat, frame(caller))
            hidden = set(moment.seats[caller] - moment.sight(seat))
            assert (indicator in hidden) == bool(sighted)
            suit = {f"the hidden trump {trump}"} if sighted else set()
            assert leaked(count) == hidden | suit
            for language in ("en", "fa"):
                html = table(caller, language)
                # Whatever the caller's table names of his cards (his whole holding at least).
                named = cards_named(HAKEM_DRAW_HTML.sub("", html))
                assert hidden - {indicator} <= named
                count = len(audit.leaks)
                audit.check_html("r", seat, html, kind="html", version=9)
                suit = {f"the hidden trump {trump.lower()}"} if sighted else set()
                assert leaked(count) == (named & hidden) | suit
        # Trump named to a receiver it is hidden from, in the view, an event or the table.
        for seat in blind_to_indicator:
            count = len(audit.leaks)
            audit.check_json("r", seat, frame(seat, note={"trump": trump}))
            event = {"version": 9, "hand": 0, "seat": 0, "reveal": {"trump": trump}}
            audit.check_json("r", seat, frame(seat, event=event))
            html = f'<div class="trump trump--{trump.lower()} trump--hidden"></div>'
            audit.check_html("r", seat, html, kind="html", version=9)
            assert [leak.what for leak in audit.leaks[count:]] == [
                f"the hidden trump {trump}",
                f"the hidden trump {trump}",
                f"the hidden trump {trump.lower()}",
            ]
        # The blind indicator is hidden from the caller himself.
        assert (caller in blind_to_indicator) == (options.hidden_trump is HiddenTrump.BLIND)
        assert (indicator in moment.seats[caller]) == bool(sighted)
    # The replay of the deal in play, with its pile face up, the indicator or trump named.
    hand = {
        "tricks": [{"cards": [c.text for c in t.cards]} for t in deal.tricks],
        "hidden": {"card": deal.indicator.text if deal.indicator else None},
        "trump": deal.trump.value if options.hidden else None,
    }
    page = (
        '<script id="replay-data" type="application/json">'
        + json.dumps({"revealed": False, "hands": [hand]})
        + "</script>"
    )
    count = len(audit.leaks)
    audit.check_history_page("r", page, kind="page replay")
    found = {leak.what for leak in audit.leaks[count:]}
    expected = {f"the card {card} of hand 0" for card in planted}
    if options.hidden:
        expected |= {f"the card {deal.indicator.text} of hand 0", "the hidden trump"}
    assert expected <= found
    assert all(what.startswith(("the card", "the hidden trump")) for what in found), found
    # The table settings may name the ace the public flips stopped at (the ace caller's, R9.16),
    # and no other card.
    last_flip = state.draw.cards[-1].text
    other = sorted(set(moment.seats[0]) - moment.played - {last_flip})[0]
    count = len(audit.leaks)
    for card in (last_flip, other):
        with translation.override("en"):
            label = card_face(card).label
        settings = f'<dl class="rp-settings"><dt>Ace caller</dt><dd>{label}</dd></dl>'
        audit.check_history_page("r", settings, kind="page replay")
    assert [leak.what for leak in audit.leaks[count:]] == [f"the setting {other}"]
    # Seeds of its draw and deals, and the fields of a deal.
    count = len(audit.leaks)
    audit.check_json("r", 0, frame(0, note=f"x{state.deal_seed}"))
    audit.check_json("r", 0, frame(0, clock={"first5": [], "deal_seed": 1}))
    audit.check_html("r", 0, '<i data-first5="1"></i>', kind="html", version=9)
    assert [leak.what.split(" (")[0] for leak in audit.leaks[count:]] == [
        "a seed",
        "the field 'deal_seed'",
        "the field 'first5'",
        "the word 'first5'",
    ]
