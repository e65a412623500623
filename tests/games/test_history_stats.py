"""The statistics of the public profile (games.history.stats) and their page.

Expected numbers are worked out here independently of ``games.history.stats``: from the engine's own
results of matches played through the services, or written by hand for rows built directly.
Sides follow R1.4 (hokm4: seats s and s + 2; otherwise every seat alone); Kots R5.2 and R5.3.1.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import pairwise

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils.formats import date_format

from accounts.models import User
from games.engine import outcome
from games.history.stats import (
    CHART_MATCHES,
    ChartResult,
    HandRecord,
    PlayerRecord,
    favourite_partner,
    hand_record,
    net_results,
    player_record,
    player_stats,
    results_chart,
)
from games.models import ComputerLevel, Hand, Match, MatchSeat, Table
from games.play.services import SeatSpec, match_create
from tests.accounts.players import client_for, make_player
from tests.games.factories import PlayedMatch, engine_hand_search, match_play

pytestmark = pytest.mark.django_db

SVG = "{http://www.w3.org/2000/svg}"
START = datetime.fromisoformat("2026-03-01T12:00:00+00:00")


def side_of(variant: str, seat: int) -> int:
    """R1.4, written out again: two teams in hokm4, every player alone otherwise."""
    return seat % 2 if variant == "hokm4" else seat


# Matches played through the services -----------------------------------------------------------


def play(variant: str, seated: Sequence[User | None], *, seed: int, target: int = 1) -> PlayedMatch:
    """A match with ``seated`` in seats 0, 1, ... (None: a computer player), played to its end."""
    seats = [
        SeatSpec(name=user.username, user=user)
        if user
        else SeatSpec(name=f"computer{i}", computer_level=ComputerLevel.MEDIUM)
        for i, user in enumerate(seated)
    ]
    match = match_create(variant=variant, target=target, seats=seats, seed=seed)
    played = match_play(match, rng_seed=seed)
    assert played.match.status == Match.Status.FINISHED
    return played


def expected_hands(games: Sequence[tuple[PlayedMatch, int]]) -> HandRecord:
    """The hand statistics of the player at ``seat`` of each match, from the engine's results."""
    totals: Counter[str] = Counter()
    for played, seat in games:
        variant = played.match.variant
        mine = side_of(variant, seat)
        for state in played.hands:
            result = outcome(state)
            assert result is not None
            won = result.winner == mine
            hakem_side = side_of(variant, state.hakem)
            totals["played"] += 1
            totals["won"] += won
            totals["kots_made"] += result.kot and won
            totals["hakem_kots_made"] += result.hakem_kot and won
            totals["kots_suffered"] += result.kot and not won
            totals["hakem_kots_suffered"] += result.hakem_kot and hakem_side == mine
            totals["as_hakem"] += state.hakem == seat
            totals["won_as_hakem"] += state.hakem == seat and won
    return HandRecord(**totals)


def test_hand_statistics_equal_the_engine_results_in_every_variant_R5_2() -> None:
    roya, sina = make_player("roya"), make_player("sina")
    kot_seed = engine_hand_search("hokm4", lambda h: h.result.kot and not h.result.hakem_kot)
    hakem_kot_seed = engine_hand_search("hokm4", lambda h: h.result.hakem_kot)
    kot3_seed = engine_hand_search("hokm3", lambda h: h.result.kot)
    seatings = [
        # One-hand matches (target 1) with a Kot and a Hakem Kot, Roya on each side in turn.
        ("hokm4", [roya, None, sina, None], kot_seed, 1),
        ("hokm4", [None, roya, None, sina], kot_seed, 1),
        ("hokm4", [roya, sina, None, None], hakem_kot_seed, 1),
        ("hokm4", [sina, None, None, roya], hakem_kot_seed, 1),
        ("hokm3", [None, roya, sina], kot3_seed, 1),
        # Longer matches: several hands, the Hakem changing (R6).
        ("hokm4", [None, None, roya, sina], 11, 3),
        ("hokm3", [roya, None, None], 12, 3),
        ("hokm2", [None, roya], 13, 3),
        ("hokm2-draw", [roya, sina], 14, 3),
    ]
    games = [
        (play(variant, seated, seed=seed, target=target), seated)
        for variant, seated, seed, target in seatings
    ]
    expected = expected_hands([(played, seated.index(roya)) for played, seated in games])

    assert hand_record(user=roya) == expected
    # The hands really hold what is counted, so the test counts something.
    assert expected.played > len(games)
    assert expected.kots_made and expected.kots_suffered
    assert expected.hakem_kots_made + expected.hakem_kots_suffered > 0
    assert 0 < expected.won_as_hakem <= expected.as_hakem

    # Matches: the engine's winner against Roya's side.
    won = sum(
        played.shadow.winner == side_of(played.match.variant, seated.index(roya))
        for played, seated in games
    )
    assert player_record(user=roya) == PlayerRecord(played=len(games), won=won)

    # Sina's statistics come from the same rows, seen from his seats.
    sina_games = [(played, seated.index(sina)) for played, seated in games if sina in seated]
    assert hand_record(user=sina) == expected_hands(sina_games)


# Rows built directly --------------------------------------------------------------------------


@dataclass(frozen=True)
class H:
    """One finished hand: its Hakem seat, winning side and Kot flags."""

    hakem: int
    winner: int
    kot: bool = False
    hakem_kot: bool = False


def stored(
    variant: str,
    seated: Sequence[User | None],
    *,
    winner: int,
    hands: Sequence[H] = (),
    status: str = Match.Status.FINISHED,
    imported: bool = False,
    finished_at: datetime = START,
) -> Match:
    """A match written straight to the tables, for numbers chosen by hand."""
    match = Match.objects.create(
        variant=variant,
        target=7,
        status=status,
        winner_side=winner if status == Match.Status.FINISHED else None,
        imported=imported,
        finished_at=finished_at,
    )
    MatchSeat.objects.bulk_create(
        MatchSeat(
            match=match,
            index=i,
            user=user,
            name=user.username if user else f"computer{i}",
            computer_level=None if user else ComputerLevel.MEDIUM,
        )
        for i, user in enumerate(seated)
    )
    Hand.objects.bulk_create(
        Hand(
            match=match,
            number=n,
            hakem=hand.hakem,
            dealer=(hand.hakem - 1) % len(seated),
            deck="",
            status=Hand.Status.FINISHED,
            winner_side=hand.winner,
            points=3 if hand.hakem_kot else 2 if hand.kot else 1,
            kot=hand.kot,
            hakem_kot=hand.hakem_kot,
        )
        for n, hand in enumerate(hands)
    )
    return match


def test_kots_made_and_suffered_and_hakem_hands_in_four_players_R5_2() -> None:
    roya, sina = make_player("roya"), make_player("sina")
    # Roya in seat 1: her side is 1, with seat 3.
    stored(
        "hokm4",
        [sina, roya, None, None],
        winner=1,
        hands=[
            H(hakem=1, winner=1, kot=True),  # she is Hakem and her side sweeps: a Kot made
            H(hakem=0, winner=1, kot=True, hakem_kot=True),  # a Hakem Kot made
            H(hakem=3, winner=0, kot=True, hakem_kot=True),  # her partner is Hakem: suffered
            H(hakem=0, winner=0, kot=True),  # the other side's Kot: suffered, not a Hakem Kot
            H(hakem=1, winner=0),  # she is Hakem and loses the hand
            H(hakem=1, winner=1),  # she is Hakem and wins the hand
            H(hakem=2, winner=1),  # won, no Kot
        ],
    )
    # Not counted: imported, abandoned, still playing.
    stored("hokm4", [None, roya, None, None], winner=1, hands=[H(1, 1, True)], imported=True)
    for status in (Match.Status.ABANDONED, Match.Status.PLAYING):
        stored("hokm4", [None, roya, None, None], winner=1, hands=[H(1, 1, True)], status=status)

    stats = hand_record(user=roya)

    assert stats == HandRecord(
        played=7,
        won=4,
        kots_made=2,
        hakem_kots_made=1,
        kots_suffered=2,
        hakem_kots_suffered=1,
        as_hakem=3,
        won_as_hakem=2,
    )
    assert stats.won_ratio.percent == 57
    assert stats.hakem_ratio.percent == 67
    # Sina (seat 0, side 0) sees the same hands from the other side.
    assert hand_record(user=sina) == HandRecord(
        played=7,
        won=3,
        kots_made=2,
        hakem_kots_made=1,
        kots_suffered=2,
        hakem_kots_suffered=1,
        as_hakem=2,
        won_as_hakem=1,
    )


def test_three_and_two_player_hands_have_no_partner_R5_3() -> None:
    roya = make_player("roya")
    # hokm3, Roya in seat 2: every seat is its own side.
    stored(
        "hokm3",
        [None, None, roya],
        winner=2,
        hands=[
            H(hakem=2, winner=0, kot=True, hakem_kot=True),  # swept as Hakem: Hakem Kot suffered
            H(hakem=0, winner=1, kot=True, hakem_kot=True),  # a Kot against seat 0: suffered too
            H(hakem=2, winner=2, kot=True),  # a Kot made as Hakem
            H(hakem=1, winner=2),  # R5.3.2 or R5.3.3: won, no Kot
        ],
    )
    # hokm2, Roya in seat 0.
    stored(
        "hokm2",
        [roya, None],
        winner=1,
        hands=[H(hakem=1, winner=0, kot=True, hakem_kot=True), H(hakem=0, winner=1)],
    )

    assert hand_record(user=roya) == HandRecord(
        played=6,
        won=3,
        kots_made=2,
        hakem_kots_made=1,
        kots_suffered=2,
        hakem_kots_suffered=1,
        as_hakem=3,
        won_as_hakem=1,
    )
    assert player_record(user=roya).played == 2
    assert player_record(user=roya).won == 1
    assert favourite_partner(user=roya) is None


def test_favourite_partner_is_the_person_opposite_most_often_R1_4() -> None:
    roya, sina, mina, reza = (make_player(name) for name in ("roya", "sina", "mina", "reza"))
    # Sina opposite Roya three times, won twice; Mina three times, won once.
    stored("hokm4", [roya, None, sina, None], winner=0)
    stored("hokm4", [None, sina, reza, roya], winner=1)
    stored("hokm4", [sina, reza, roya, None], winner=1)
    stored("hokm4", [roya, reza, mina, None], winner=0)
    stored("hokm4", [mina, None, roya, reza], winner=1)
    stored("hokm4", [None, mina, None, roya], winner=0)
    # Reza sat beside her six times: an opponent, never a partner. A computer opposite her
    # twice. Neither counts, nor games of other variants, imported or unfinished ones.
    stored("hokm4", [roya, reza, None, None], winner=0)
    stored("hokm4", [roya, reza, None, None], winner=0)
    stored("hokm3", [roya, reza, sina], winner=0)
    stored("hokm2", [roya, mina], winner=0)
    stored("hokm4", [roya, None, mina, None], winner=0, imported=True)
    stored("hokm4", [roya, None, mina, None], winner=0, status=Match.Status.ABANDONED)

    partner = favourite_partner(user=roya)

    assert partner is not None
    assert (partner.user, partner.played, partner.won) == (sina, 3, 2)
    assert partner.won_percent == 67
    # Seen from Sina, Roya is the one.
    sina_partner = favourite_partner(user=sina)
    assert sina_partner is not None
    assert (sina_partner.user, sina_partner.played, sina_partner.won) == (roya, 3, 2)


def test_favourite_partner_ties_go_to_more_wins_then_the_latest() -> None:
    roya, sina, mina = (make_player(name) for name in ("roya", "sina", "mina"))
    stored("hokm4", [roya, None, sina, None], winner=1)
    stored("hokm4", [roya, None, mina, None], winner=1)
    assert favourite_partner(user=roya).user == mina  # same games and wins: the latest

    stored("hokm4", [roya, None, sina, None], winner=0)
    stored("hokm4", [roya, None, mina, None], winner=1)
    assert favourite_partner(user=roya).user == sina  # 2 games each, Sina won one


def test_partners_at_private_tables_show_only_on_his_own_view_of_his_page_R1_4() -> None:
    """The favourite partner on the public page told anyone who plays with whom at private
    tables (the report form was fixed for the same reason). Others now see partners from
    public tables and tableless matches alone; the player himself sees all of them."""
    roya, sina, mina = make_player("roya"), make_player("sina"), make_player("mina")
    hidden = Table.objects.create(name="Home", variant="hokm4", is_private=True)
    public = Table.objects.create(name="Lobby game", variant="hokm4")
    for _ in range(3):  # Sina opposite her three times, at her private table
        Match.objects.filter(pk=stored("hokm4", [roya, None, sina, None], winner=0).pk).update(
            table=hidden
        )
    Match.objects.filter(pk=stored("hokm4", [roya, None, mina, None], winner=0).pk).update(
        table=public
    )
    stored("hokm4", [None, mina, None, roya], winner=1)  # no table (API)

    assert favourite_partner(user=roya).user == mina
    assert favourite_partner(user=roya).played == 2
    assert favourite_partner(user=roya, include_private=True).user == sina
    assert favourite_partner(user=sina) is None  # his only partner games were private
    page = reverse("games:profile", args=["roya"])
    stranger = client_for(make_player("reza"))
    herself = client_for(roya)
    assert "sina" not in stranger.get(page).content.decode()
    assert "mina" in stranger.get(page).content.decode()
    assert "sina" in herself.get(page).content.decode()


def test_a_player_with_no_match_has_empty_statistics() -> None:
    newbie = make_player("newbie")
    stored("hokm4", [None, None, None, None], winner=0, hands=[H(0, 0, True)])

    stats = player_stats(user=newbie)

    assert (stats.record.played, stats.record.won, stats.record.won_percent) == (0, 0, None)
    assert stats.hands == HandRecord()
    assert stats.hands.won_ratio.percent is None
    assert stats.hands.hakem_ratio.percent is None
    assert stats.partner is None
    assert stats.recent == ()
    assert stats.chart is None


def test_profile_page_of_a_player_with_no_match() -> None:
    make_player("newbie")

    response = Client().get(reverse("games:profile", args=["newbie"]))

    assert response.status_code == 200
    html = response.content.decode()
    assert "<svg" not in html
    assert "No finished games yet" in html
    assert "No partner yet" in html
    # Three shares with nothing to share (no 0/0): a dash, and words for screen readers.
    assert html.count('<span class="visually-hidden">none yet</span>') == 3
    assert "0 of 0 hands" in html


# The page and its chart -----------------------------------------------------------------------


def chart_of(html: str) -> ET.Element:
    """The inline SVG of the page, parsed as XML (it must be well-formed on its own)."""
    found = re.search(r"<svg\b.*?</svg>", html, re.S)
    assert found, "no chart on the page"
    return ET.fromstring(found.group(0))


def results_for(roya: User, outcomes: str, *, others: Sequence[User | None] = (None,)) -> None:
    """One finished hokm2 match per letter of ``outcomes`` (W won, L lost), a day apart."""
    for day, letter in enumerate(outcomes):
        stored(
            "hokm2",
            [roya, *others],
            winner=0 if letter == "W" else 1,
            finished_at=START + timedelta(days=day),
        )


def test_profile_page_shows_every_statistic() -> None:
    roya, sina = make_player("roya", display_name="Roya K."), make_player("sina")
    # hokm4, Roya in seat 0 (side 0): Hakem in hands 0 and 1.
    stored(
        "hokm4",
        [roya, None, sina, None],
        winner=0,
        hands=[H(0, 0, kot=True), H(0, 1), H(1, 0, kot=True, hakem_kot=True), H(1, 1)],
    )
    # hokm3, Roya in seat 1: Hakem in hand 0, which she loses (R6.2 moves the Hakem on).
    stored("hokm3", [None, roya, None], winner=0, hands=[H(1, 0), H(2, 1, True, True)])

    response = Client().get(reverse("games:profile", args=["roya"]))

    assert response.status_code == 200
    html = " ".join(response.content.decode().split())
    stats = response.context["stats"]
    assert (stats.record.played, stats.record.won) == (2, 1)
    assert "Won</dt> <dd>50%</dd>" in html
    # 6 hands, 3 won; Hakem in 3, 1 of them won.
    assert 'Hands won</dt> <dd>50%</dd> <dd class="player-stat-detail"> 3 of 6 hands' in html
    assert 'as Hakem</dt> <dd>33%</dd> <dd class="player-stat-detail"> 1 of 3 hands' in html
    assert 'Kots made</dt> <dd>3</dd> <dd class="player-stat-detail"> Hakem Kots: 2' in html
    assert 'Kots suffered</dt> <dd>0</dd> <dd class="player-stat-detail"> Hakem Kots: 0' in html
    assert 'href="/players/sina/"' in html
    assert "1 four-player game together, 1 won" in html
    assert "Imported game records and unfinished games are not counted." in html


def test_large_numbers_are_grouped_as_the_language_writes_them() -> None:
    roya = make_player("roya")
    stored("hokm2", [roya, None], winner=0, hands=[H(n % 2, 0) for n in range(1234)])

    html = Client().get(reverse("games:profile", args=["roya"])).content.decode()

    assert "1,234 of 1,234 hands" in html
    assert "617 of 617 hands" in html


def test_chart_has_one_point_per_match_and_the_net_result() -> None:
    roya = make_player("roya")
    outcomes = "WWLWLLLW"
    results_for(roya, outcomes)

    html = Client().get(reverse("games:profile", args=["roya"])).content.decode()
    svg = chart_of(html)

    assert svg.get("role") == "img"
    assert svg.get("aria-labelledby") == "results-chart-title"
    assert svg.get("aria-describedby") == "results-chart-desc"
    assert svg.find(f"{SVG}title").text == "Results of the last 8 games"
    desc = " ".join(svg.find(f"{SVG}desc").text.split())
    assert "4 won and 4 lost" in desc and "ends at 0." in desc
    points = svg.findall(f"{SVG}g[@class='results-chart-points']/{SVG}circle")
    assert [p.get("class") for p in points] == [
        "is-won" if letter == "W" else "is-lost" for letter in outcomes
    ]
    segments = svg.findall(f"{SVG}g[@class='results-chart-line']/{SVG}line")
    assert len(segments) == len(outcomes)
    # Each segment ends where the next begins, and the line goes up for a win, down for a loss.
    for before, after in pairwise(segments):
        assert (before.get("x2"), before.get("y2")) == (after.get("x1"), after.get("y1"))
    for segment, letter in zip(segments, outcomes, strict=True):
        rising = float(segment.get("y2")) < float(segment.get("y1"))
        assert rising == (letter == "W")
    # Rules at the highest (+2), zero and the lowest (-1) net results.
    labels = [t.text for t in svg.findall(f"{SVG}g[@class='results-chart-rules']/{SVG}text")]
    assert labels == ["+2", "0", "\u22121"]
    # The time axis: first and last dates under the chart, oldest on the left.
    first, last = (date_format(START + timedelta(days=d), "DATE_FORMAT") for d in (0, 7))
    dates = re.search(r'class="results-chart-dates".*?</div>', html, re.S).group(0)
    assert dates.index(first) < dates.index(last)


def test_chart_shows_the_latest_matches_only() -> None:
    roya = make_player("roya")
    outcomes = "L" * 5 + "W" * CHART_MATCHES
    results_for(roya, outcomes)

    html = Client().get(reverse("games:profile", args=["roya"])).content.decode()
    svg = chart_of(html)

    points = svg.findall(f".//{SVG}circle")
    assert len(points) == CHART_MATCHES
    assert {p.get("class") for p in points} == {"is-won"}
    assert svg.find(f"{SVG}title").text == f"Results of the last {CHART_MATCHES} games"
    assert player_record(user=roya).played == CHART_MATCHES + 5


def test_chart_of_a_single_match() -> None:
    roya = make_player("roya")
    results_for(roya, "L")

    svg = chart_of(Client().get(reverse("games:profile", args=["roya"])).content.decode())

    assert svg.find(f"{SVG}title").text == "Results of the last game"
    assert len(svg.findall(f".//{SVG}circle")) == 1
    labels = [t.text for t in svg.findall(f".//{SVG}text")]
    assert labels == ["0", "\u22121"]


def test_chart_is_well_formed_in_persian_and_keeps_time_left_to_right() -> None:
    roya = make_player("roya")
    results_for(roya, "WLW")

    html = Client().get("/players/roya/", HTTP_ACCEPT_LANGUAGE="fa").content.decode()
    svg = chart_of(html)

    assert 'dir="rtl"' in html
    assert svg.get("direction") == "ltr"
    assert len(svg.findall(f".//{SVG}circle")) == 3
    assert '<div class="results-chart-dates" dir="ltr"' in html


def test_results_chart_layout() -> None:
    results = [ChartResult(won=w, finished_at=None) for w in (True, True, False, False, False)]
    assert net_results(results) == [0, 1, 2, 1, 0, -1]

    chart = results_chart(results)

    assert chart is not None
    assert (chart.won, chart.lost, chart.net, chart.count) == (2, 3, "\u22121", 5)
    assert [rule.label for rule in chart.rules] == ["+2", "0", "\u22121"]
    assert chart.origin.x == "2.00%" and chart.points[-1].x == "98.00%"
    ys = [float(chart.origin.y), *(float(p.y) for p in chart.points)]
    # Highest net (+2) at the top rule, lowest (-1) at the bottom one; a win goes up the page.
    assert ys[2] == float(chart.rules[0].y) and ys[5] == float(chart.rules[-1].y)
    assert ys[0] == float(chart.rules[1].y) == ys[4]
    assert results_chart([]) is None


# Queries --------------------------------------------------------------------------------------


def test_profile_makes_the_same_few_queries_whatever_the_history(django_assert_num_queries):
    roya, sina = make_player("roya"), make_player("sina")
    url = reverse("games:profile", args=["roya"])
    # Nothing played: the player, his seats (none, so no more statistics) and his ratings.
    with django_assert_num_queries(3):
        assert Client().get(url).status_code == 200

    def play(days: range) -> None:
        for day in days:
            stored(
                "hokm4" if day % 2 else "hokm3",
                [roya, None, sina, None] if day % 2 else [None, roya, sina],
                winner=day % 2,
                hands=[H(n % 3, n % 2, kot=n == 4, hakem_kot=n == 5) for n in range(8)],
                finished_at=START + timedelta(days=day),
            )

    # The player; his seats, their matches, their hands, the seats opposite his, the partner and
    # the chart's dates (games.history.stats: each reads his own rows only); his ratings.
    play(range(2))
    with django_assert_num_queries(8):
        assert Client().get(url).status_code == 200
    play(range(2, 40))
    with CaptureQueriesContext(connection) as queries:
        response = Client().get(url)
    assert len(queries) == 8
    assert response.context["stats"].hands.played == 320
    assert len(response.context["chart"].points) == 40


def test_counted_statistics_are_kept_until_the_matches_counted_change() -> None:
    roya, sina = make_player("roya"), make_player("sina")
    first = stored("hokm4", [roya, None, sina, None], winner=0, hands=[H(0, 0), H(1, 1)])
    stored("hokm4", [roya, None, sina, None], winner=1, hands=[H(0, 0)])
    assert player_stats(user=roya).hands.played == 3

    # Seen again with nothing changed: his matches are read (and the chart's dates), the hands
    # and partner are not counted again (the partner himself is read afresh, his name may have
    # changed).
    with CaptureQueriesContext(connection) as again:
        stats = player_stats(user=roya)
    assert len(again) == 4
    assert not any("games_hand" in query["sql"] for query in again)
    assert (stats.hands.played, stats.partner.user, stats.partner.played) == (3, sina, 2)

    # A match finished since, then a void: a new set of matches, counted afresh, never stale.
    stored("hokm4", [roya, None, sina, None], winner=0, hands=[H(2, 0)] * 4)
    assert player_stats(user=roya).hands.played == 7
    Match.objects.filter(pk=first.pk).update(voided=True)
    after_void = player_stats(user=roya)
    assert (after_void.hands.played, after_void.record.played, after_void.partner.played) == (
        5,
        2,
        2,
    )
