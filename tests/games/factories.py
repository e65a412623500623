"""Test data for the games app: factory_boy factories, and matches played through the services.

A match is only ever written by ``games.play.services``, so ``MatchFactory`` creates one with
``match_create``, and ``match_play`` plays it on with the engine's legal actions chosen by a seeded
RNG while an engine-only copy of the same match (the *shadow*) records what the engine itself says
the state is after every version.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import factory
from django.conf import settings
from django.http import HttpResponse
from django.test import Client

from games.engine import (
    VARIANTS,
    Action,
    HandState,
    MatchState,
    get_variant,
    match_apply,
    match_legal_actions,
    new_match,
    next_hand,
)
from games.lobby.selectors import computer_player_name
from games.lobby.services import table_create
from games.models import CardPlay, ComputerLevel, Hand, Match, MatchSeat, Seat, Table
from games.play import fairness
from games.play.services import SeatSpec, match_apply_action, match_create, match_deal_next_hand


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = settings.AUTH_USER_MODEL
        django_get_or_create = ["username"]

    username = factory.Sequence(lambda n: f"player{n}")


class TableFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Table

    name = factory.Sequence(lambda n: f"Table {n}")
    variant = "hokm4"
    created_by = factory.SubFactory(UserFactory)


class SeatFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Seat

    table = factory.SubFactory(TableFactory)
    index = factory.Sequence(lambda n: n % 4)
    user = factory.SubFactory(UserFactory)


def seat_specs(variant: str, *, prefix: str = "player") -> list[SeatSpec]:
    """One named seat per player of the variant, with no users."""
    return [SeatSpec(name=f"{prefix}{i}") for i in range(get_variant(variant).players)]


class MatchFactory(factory.Factory):
    """A new match at hand 0, made by ``match_create``."""

    class Meta:
        model = Match

    variant = "hokm4"
    target = 7
    seed = factory.Sequence(lambda n: 1000 + n)
    partner_draw = False
    # Every match played on the site has a table: a public one that lets spectators in.
    table = factory.LazyAttribute(lambda o: TableFactory(variant=o.variant))
    seats = factory.LazyAttribute(lambda o: seat_specs(o.variant))

    @classmethod
    def _create(cls, model_class: type[Match], *args: object, **kwargs: object) -> Match:
        return match_create(**kwargs)


def shadow_of(match: Match) -> MatchState:
    """The engine's own copy of a stored match, as ``match_create`` started it: from its seed,
    or, dealt fairly (R8.4), from the flips' and the first hand's stored shuffles."""
    state = new_match(
        get_variant(match.variant),
        seed=match.seed,
        target=match.target,
        partner_draw=match.partner_draw,
    )
    if match.draw_fair:
        first = Hand.objects.get(match=match, number=0)
        state = fairness.first_hand(
            state, draw=match.draw_fair, hand=first.fair, partner_draw=match.partner_draw
        )
    return state


def shadow_next(match_id: int, state: MatchState) -> MatchState:
    """The engine's copy of the hand the services just dealt: from the match's seed, or from the
    fair shuffle stored with it (R8.4)."""
    dealt = Hand.objects.filter(match_id=match_id).order_by("-number").first()
    if dealt is not None and dealt.fair:
        after = fairness.deal_next(state, dealt.fair, hand_index=dealt.number)
        assert isinstance(after, MatchState)
        return after
    return next_hand(state)


@dataclass
class PlayedMatch:
    """A match played through the services, with the engine's view of the same play."""

    match: Match
    #: ``states[v]``: the engine's match state at version v (one service call per version).
    states: list[MatchState]
    #: The engine's latest state of each hand, by hand number.
    hands: list[HandState] = field(default_factory=list)
    actions: list[Action] = field(default_factory=list)

    @property
    def shadow(self) -> MatchState:
        return self.states[-1]


def match_play(
    match: Match,
    *,
    rng_seed: int = 0,
    until: Callable[[MatchState], bool] | None = None,
    on_step: Callable[[MatchState], None] | None = None,
) -> PlayedMatch:
    """Play a stored match from its start through the services until it is over or ``until(state)``.

    Actions are the engine's legal actions picked by ``random.Random(rng_seed)``; a decided hand
    is followed by ``match_deal_next_hand``. ``on_step`` gets the engine's state after each call.
    The match must still be at version 0: the shadow starts where ``match_create`` left it.
    """
    rng = random.Random(rng_seed)
    state = shadow_of(match)
    played = PlayedMatch(match=match, states=[state], hands=[state.hand])
    while not state.is_over and not (until and until(state)):
        if state.awaiting_next_hand:
            match_deal_next_hand(match=match.pk)
            state = shadow_next(match.pk, state)
        else:
            action = rng.choice(match_legal_actions(state))
            match_apply_action(match=match.pk, seat=action.seat, action=action)
            state = match_apply(state, action)
            played.actions.append(action)
        played.states.append(state)
        if on_step:
            on_step(state)
        number = state.hand_number
        if number == len(played.hands):
            played.hands.append(state.hand)
        else:
            played.hands[number] = state.hand
    played.match = Match.objects.get(pk=match.pk)
    return played


#: A seat for a computer player in :func:`seated_match`.
COMPUTER = None


def seated_match(
    *people, variant="hokm4", target=1, table=None, play=True, rng_seed=0, seed=None
) -> Match:
    """A match with ``people`` in seat order (``COMPUTER`` for a computer player), played through
    the services to its end unless ``play`` is false (then it is being played, at hand 1).

    The match's seed is ``seed``, or else follows from ``rng_seed`` (the seed of the moves), so a
    played match ends the same way whatever ran before it.
    """
    seats = [
        SeatSpec(name=computer_player_name(level="medium", index=i), computer_level="medium")
        if person is COMPUTER
        else SeatSpec(name=person.username, user=person)
        for i, person in enumerate(people)
    ]
    match = MatchFactory(
        variant=variant,
        target=target,
        seats=seats,
        table=table or TableFactory(variant=variant),
        seed=7000 + rng_seed if seed is None else seed,
    )
    if play:
        return match_play(match, rng_seed=rng_seed).match
    return Match.objects.get(pk=match.pk)


def engine_hand_search(
    variant: str, predicate: Callable[[HandState], bool], *, limit: int = 5000
) -> int:
    """A seed whose first hand, played at random, ends meeting ``predicate``.

    The seed serves as both the match seed and the RNG seed: ``MatchFactory(seed=seed)`` then
    ``match_play(match, rng_seed=seed)`` plays the very same hand through the services. Searching
    in the engine alone is cheap.
    """
    rules = VARIANTS[variant]
    for seed in range(limit):
        rng = random.Random(seed)
        state = new_match(rules, seed=seed)
        while not state.hand.is_over:
            state = match_apply(state, rng.choice(match_legal_actions(state)))
        if predicate(state.hand):
            return seed
    raise AssertionError(f"no {variant} hand in {limit} seeds meets the predicate")


def open_table(user: object = None, **overrides: object) -> Table:
    """A table opened through the service, public hokm4 to 7 with a 30 s clock unless told."""
    settings = {
        "user": user or UserFactory(),
        "name": "Friday night",
        "variant": "hokm4",
        "target": 7,
        "turn_clock_seconds": 30,
        "is_private": False,
        "allow_spectators": True,
        "fill_with_computer": False,
        "computer_level": ComputerLevel.MEDIUM,
        "partner_draw": False,
    }
    return table_create(**(settings | overrides))


def table_form_data(**overrides: str | None) -> dict[str, str]:
    """What the table form posts: a public hokm4 to 7 with a 30 s clock, open to spectators, at
    the medium level; ``overrides`` on top, a ``None`` leaving its field out."""
    data: dict[str, str | None] = {
        "name": "Evening game",
        "variant": "hokm4",
        "target": "7",
        "turn_clock_seconds": "30",
        "allow_spectators": "on",
        "computer_level": "medium",
    }
    return {key: value for key, value in (data | overrides).items() if value is not None}


def table_snapshot(table: Table) -> tuple[Any, ...]:
    """Everything a refused request must leave as it was: the table, its seats, and the matches."""
    table.refresh_from_db()
    seats = list(
        Seat.objects.filter(table=table)
        .order_by("index")
        .values_list("index", "user", "computer_level")
    )
    return table.status, seats, Match.objects.count(), MatchSeat.objects.count()


def plays_by(match: Match | int, seat: int) -> list[str]:
    """The cards ``seat`` has played in ``match`` (a match or its id), in the order played."""
    return list(
        CardPlay.objects.filter(hand__match=match, seat=seat)
        .order_by("played_at", "pk")
        .values_list("card", flat=True)
    )


def api_match_start(raw_token: str, body: dict) -> HttpResponse:
    """``POST /api/matches/`` with ``body`` as JSON, signed in with the API token ``raw_token``."""
    return Client().post(
        "/api/matches/",
        data=json.dumps(body),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {raw_token}",
    )
