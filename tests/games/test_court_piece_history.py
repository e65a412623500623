"""Court Piece (R9) in the history room: "My games" and its filters, the match summary (each
deal's dealer, caller, trump, result, courts and streak; the table settings once), and the
profile's statistics of a partnership game (R9.1.1: seats 0 and 2 against 1 and 3).

The helpers at the top play Court Piece matches through the services, or build records of
scripted deals; ``test_court_piece_replay`` and ``test_court_piece_records`` use them too.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from html import unescape

import pytest
from django.urls import reverse

from accounts.models import User
from games.engine import (
    CourtPieceDeal,
    CourtPieceMatch,
    CourtPieceOptions,
    HiddenTrump,
    RevealTrump,
    Streak,
    Suit,
    check_court_piece_record,
    court_piece_apply,
    court_piece_legal_actions,
    new_court_piece_match,
    next_deal,
    summarise,
)
from games.engine.court_piece import CourtPieceAction, build_court_piece_record
from games.history.records import match_import_record
from games.history.selectors import match_summary_build
from games.history.stats import hand_record, player_record, player_stats
from games.models import Hand, Match, MatchSeat
from games.play.services import SeatSpec, match_apply_action, match_create, match_deal_next_hand
from tests.engine.court_piece_deals import PLAN, SIDE0_ALL, play_until_done, scripted_deal
from tests.games.factories import TableFactory, UserFactory

pytestmark = pytest.mark.django_db

NAMES = ["ali", "sara", "reza", "mina"]

OPTION_MIXES = {
    "plain": CourtPieceOptions(),
    "no-goon": CourtPieceOptions(goon_court=False),
    "double-sir": CourtPieceOptions(double_sir=True),
    "double-sir-ace-rule": CourtPieceOptions(double_sir=True, ace_rule=True),
    "chosen": CourtPieceOptions(hidden_trump=HiddenTrump.CHOSEN),
    "blind": CourtPieceOptions(hidden_trump=HiddenTrump.BLIND),
    "chosen-double-sir": CourtPieceOptions(hidden_trump=HiddenTrump.CHOSEN, double_sir=True),
    "blind-double-sir-ace": CourtPieceOptions(
        hidden_trump=HiddenTrump.BLIND, double_sir=True, ace_rule=True
    ),
    "ace-caller": CourtPieceOptions(ace_caller=Suit.HEARTS),
}


# -- matches played through the services ---------------------------------------------------------


@dataclass
class CourtPlayed:
    """A court-piece match played through the services, with the engine's copy of the play."""

    match: Match
    #: The engine's state after each service call (the first: as ``match_create`` left it).
    states: list[CourtPieceMatch] = field(default_factory=list)
    #: The action of each call (None: the next deal dealt), ``states[i + 1]`` after ``actions[i]``.
    actions: list[CourtPieceAction | None] = field(default_factory=list)

    @property
    def shadow(self) -> CourtPieceMatch:
        return self.states[-1]

    @property
    def deals(self) -> list[CourtPieceDeal]:
        """The latest state of each deal, in order."""
        latest: dict[int, CourtPieceDeal] = {}
        for state in self.states:
            latest[len(state.summaries) - (1 if state.deal.is_over else 0)] = state.deal
        return [latest[number] for number in sorted(latest)]


def court_piece_match(
    options: CourtPieceOptions = CourtPieceOptions(),  # noqa: B008 (frozen, so shared safely)
    *,
    seed: int = 1,
    target: int = 1,
    max_deals: int | None = 1,
    users: list[User | None] | None = None,
    **kwargs: object,
) -> Match:
    """A new court-piece match at a public table, ``users`` (or named seats) in seat order."""
    users = users or [None] * 4
    seats = [
        SeatSpec(name=user.username, user=user) if user else SeatSpec(name=NAMES[index])
        for index, user in enumerate(users)
    ]
    kwargs.setdefault("table", TableFactory(variant="court-piece"))
    return match_create(
        variant="court-piece",
        target=target,
        seats=seats,
        seed=seed,
        options=options.to_json(),
        max_deals=max_deals,
        **kwargs,
    )


def court_piece_choice(
    state: CourtPieceMatch, rng: random.Random, *, reveals: bool = True
) -> CourtPieceAction | None:
    """The next action of :func:`court_piece_play` (None: deal the next deal): a random legal
    action, a reveal (R9.14.2) taken half the times it is allowed; never asked for without
    ``reveals`` (then only the rules' own, R9.14.2.3)."""
    if state.awaiting_next_deal:
        return None
    legal = court_piece_legal_actions(state)
    asks = [a for a in legal if isinstance(a, RevealTrump)]
    if asks and reveals and rng.random() < 0.5:
        return asks[0]
    return rng.choice(legal if reveals else [a for a in legal if not isinstance(a, RevealTrump)])


def engine_play(
    options: CourtPieceOptions,
    *,
    seed: int,
    rng_seed: int,
    target: int = 1,
    max_deals: int | None = 1,
    until: Callable[[CourtPieceMatch], bool] | None = None,
    reveals: bool = True,
) -> CourtPieceMatch:
    """What :func:`court_piece_play` plays, in the engine alone: a cheap search for a seed."""
    state = new_court_piece_match(options, seed=seed, target=target, max_deals=max_deals)
    rng = random.Random(rng_seed)
    while not state.is_over and not (until and until(state)):
        action = court_piece_choice(state, rng, reveals=reveals)
        state = next_deal(state) if action is None else court_piece_apply(state, action)
    return state


def court_piece_play(
    match: Match,
    *,
    rng_seed: int = 0,
    until: Callable[[CourtPieceMatch], bool] | None = None,
    reveals: bool = True,
) -> CourtPlayed:
    """Play a stored court-piece match from its start through the services until it is over or
    ``until(state)``, the actions of :func:`court_piece_choice`, the next deal dealt when one is
    decided."""
    stored = Match.objects.get(pk=match.pk)
    options = CourtPieceOptions.from_json(stored.options)
    assert stored.seed is not None
    state = new_court_piece_match(
        options, seed=stored.seed, target=stored.target, max_deals=stored.max_deals
    )
    played = CourtPlayed(match=stored, states=[state])
    rng = random.Random(rng_seed)
    while not state.is_over and not (until and until(state)):
        action = court_piece_choice(state, rng, reveals=reveals)
        if action is None:
            match_deal_next_hand(match=match.pk)
            state = next_deal(state)
        else:
            match_apply_action(match=match.pk, seat=action.seat, action=action)
            state = court_piece_apply(state, action)
        played.states.append(state)
        played.actions.append(action)
    played.match = Match.objects.get(pk=match.pk)
    return played


def seed_where(
    predicate: Callable[[CourtPieceMatch], bool],
    options: CourtPieceOptions,
    *,
    limit: int = 500,
    **kwargs: object,
) -> int:
    """A seed (of the match and of its moves) whose play by :func:`engine_play` meets
    ``predicate``: ``court_piece_match(options, seed=seed)`` then ``court_piece_play(match,
    rng_seed=seed)`` plays the very same match through the services."""
    for seed in range(limit):
        if predicate(engine_play(options, seed=seed, rng_seed=seed, **kwargs)):  # type: ignore[arg-type]
            return seed
    raise AssertionError(f"no seed in {limit} meets the predicate")


# -- records of scripted deals (tests/engine/court_piece_deals) ---------------------------------

#: Winners of each trick of a deal as ``scripted_deal`` plays it (the deal stops when decided):
#: side 0 or side 1 takes every trick, takes the first 7 and loses the 8th (a court), or wins
#: 7 of the first 8 without a court.
SIDE0_52 = SIDE0_ALL
SIDE1_COURT = [1, 3, 1, 3, 1, 3, 1, 0, 2, 0, 2, 0]
SIDE0_WON = [1, 0, 2, 0, 2, 0, 2, 0, 2, 1, 1, 1]


def scripted_record(
    deals: list[list[int]],
    *,
    target: int,
    max_deals: int | None = None,
    options: CourtPieceOptions = CourtPieceOptions(),  # noqa: B008 (frozen)
    first_dealer: int = 3,
) -> dict:
    """The record of a match of scripted deals, each dealt by the dealer R9.9 names."""
    states: list[CourtPieceDeal] = []
    streak, scores, dealer = Streak(), (0, 0), first_dealer
    for winners in deals:
        # Under hidden trump the indicator is the caller's last card, never played here.
        state, tricks = scripted_deal(
            PLAN, winners, dealer=dealer, options=options, indicator_of_caller=options.hidden
        )
        state = play_until_done(state, tricks)
        summary = summarise(state, streak, scores)
        streak, scores, dealer = summary.streak, summary.scores, summary.next_dealer
        states.append(state)
    document = build_court_piece_record(
        options=options,
        target=target,
        max_deals=max_deals,
        players=NAMES,
        draw=None,
        deals=states,
    )
    assert check_court_piece_record(document)["valid"] is True
    return document


def imported_for(document: dict, users: list[User | None]) -> Match:
    """A record imported, then given to people as if played here (rows written directly)."""
    match = match_import_record(document=document)
    for index, user in enumerate(users):
        if user is not None:
            MatchSeat.objects.filter(match=match, index=index).update(user=user, name=user.username)
    Match.objects.filter(pk=match.pk).update(imported=False, table=TableFactory())
    return Match.objects.get(pk=match.pk)


#: A 52-court by the calling side (52), a goon court (3), then seven deals won in a row by side 0:
#: the seventh scores the seven-in-a-row court (R9.7.1, R9.7.2, R9.8.2). 53 courts win.
KINDS_DEALS = [SIDE0_52, SIDE1_COURT] + [SIDE0_WON] * 7


@pytest.fixture
def kinds_record() -> dict:
    document = scripted_record(KINDS_DEALS, target=53)
    verdict = check_court_piece_record(document)
    assert verdict["complete"] is True and verdict["score"] == [53, 3]
    return document


def page_text(html: str) -> str:
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html)))


# -- "My games" ----------------------------------------------------------------------------------


def test_court_piece_is_a_variant_of_the_filter_and_lists_its_matches(client):
    me = UserFactory(username="me")
    court = imported_for(scripted_record([SIDE0_WON], target=1), [me, None, None, None])
    seats = [SeatSpec(name="me", user=me)] + [SeatSpec(name=n) for n in NAMES[1:]]
    hokm = match_create(variant="hokm4", target=1, seats=seats, seed=5, table=TableFactory())
    client.force_login(me)
    html = client.get("/history/?variant=court-piece").content.decode()
    assert '<option value="court-piece" selected>Court Piece</option>' in html
    listed = [int(pk) for pk in re.findall(r'href="/match/(\d+)/summary/"', html)]
    assert listed == [court.pk]
    html = client.get("/history/").content.decode()
    assert [int(pk) for pk in re.findall(r'href="/match/(\d+)/summary/"', html)] == [
        hokm.pk,
        court.pk,
    ]


def test_history_row_shows_courts_and_names_each_kind_R9_7_R9_8(client, kinds_record):
    me, partner = UserFactory(username="me"), UserFactory(username="partner")
    match = imported_for(kinds_record, [None, me, None, partner])  # side 1: 3 courts to 53
    client.force_login(me)
    html = client.get("/history/").content.decode()
    text = page_text(html)
    # R9.1.1: seat 3 is my partner, seats 0 and 2 my opponents; the score is courts, mine first.
    assert "With partner" in text and "Against ali reza" in text
    assert re.search(r"3\s*</span>\s*<span[^>]*>–</span>\s*<span[^>]*>53</span>", html)
    assert "courts" in text and "Lost" in text
    assert "goon court by your side" in text
    assert "52-court against you" in text
    assert "seven in a row against you" in text
    assert "court against you" not in text.replace("52-court against you", "")
    assert match.scores == [53, 3]


def test_history_filters_partner_and_opponent_by_side_R9_1_1(client):
    me, partner, rival = (UserFactory(username=n) for n in ("me", "partner", "rival"))
    document = scripted_record([SIDE0_WON], target=1, max_deals=1)  # R9.10.2: side 0 wins
    match = imported_for(document, [me, rival, partner, None])
    client.force_login(me)

    def listed(query: str) -> list[int]:
        html = client.get(f"/history/?{query}").content.decode()
        return [int(pk) for pk in re.findall(r'href="/match/(\d+)/summary/"', html)]

    assert listed("partner=partner") == [match.pk]
    assert listed("opponent=rival") == [match.pk]
    assert listed("partner=rival") == []
    assert listed("opponent=partner") == []
    assert listed("result=won") == [match.pk]  # side 0 won the deal and so the match
    assert listed("result=lost") == []


def test_history_page_query_count_with_court_piece(client, django_assert_num_queries):
    me = UserFactory(username="me")
    imported_for(scripted_record([SIDE0_WON], target=1), [me, None, None, None])
    client.force_login(me)
    client.get("/history/")
    # Session, user, sanctions, the count, the page, its seats, the co-players (as for Hokm),
    # and the courts of the page's Court Piece matches.
    with django_assert_num_queries(8):
        assert client.get("/history/").status_code == 200


# -- the match summary -----------------------------------------------------------------------------


def summary_url(match: Match) -> str:
    return reverse("games:match_summary", kwargs={"match_id": match.pk})


def deal_rows(html: str) -> dict[int, str]:
    rows = re.findall(r'<tr id="h(\d+)" class="deal-row[^"]*">(.*?)</tr>', html, re.S)
    return {int(number): page_text(row).strip() for number, row in rows}


def test_summary_names_dealer_caller_trump_result_courts_and_streak_R9_7_R9_8_R9_9(
    client, kinds_record
):
    me = UserFactory(username="me")
    match = imported_for(kinds_record, [me, None, None, None])
    client.force_login(me)
    html = client.get(summary_url(match)).content.decode()
    rows = deal_rows(html)
    verdict = check_court_piece_record(kinds_record)
    assert sorted(rows) == list(range(1, len(verdict["hands"]) + 1))
    for number, hand in enumerate(verdict["hands"], start=1):
        row = rows[number]
        names = ["me", *NAMES[1:]]
        dealer, caller = names[hand["dealer"]], names[hand["caller"]]
        assert row.startswith(f"Deal {number} Dealer {dealer} Caller {caller} Trump ♠ spades")
        tricks = hand["side_tricks"]
        assert f"Tricks {tricks[0]} – {tricks[1]}" in row  # my side (0) first
        score = hand["score"]
        assert f"Score {score[0]} – {score[1]}" in row
        assert (f"+{hand['courts']} court" in row) == bool(hand["courts"])
        assert ("no court" in row) == (not hand["courts"])
        streak = hand["streak"]
        if streak["side"] is None:
            assert "Streak none" in row
        else:
            team = "Team A" if streak["side"] == 0 else "Team B"
            assert f"Streak {team} {streak['count']} deal" in row
        assert f'href="/match/{match.pk}/replay/#h{number}"' in html
    assert "Team A 52-court +52 courts" in rows[1]
    assert "Team B goon court +3 courts" in rows[2]  # R9.7.2: the dealing side's court
    assert "Team A seven in a row +1 court" in rows[9]  # R9.8.2
    assert "Team A deal won no court" in rows[3] and "Streak Team A 1 deal in a row" in rows[3]
    assert "Streak Team A 6 deals in a row" in rows[8] and "Streak none" in rows[9]
    text = page_text(html)
    assert "Playing to 53 courts" in text and "9 deals" in text
    assert "53 courts" in text and "3 courts" in text


def test_summary_shows_the_table_settings_once_R9_11(client):
    options = CourtPieceOptions(
        double_sir=True,
        ace_rule=True,
        hidden_trump=HiddenTrump.BLIND,
        goon_court=False,
        ace_caller=Suit.CLUBS,
    )
    match = court_piece_match(options, seed=4, max_deals=2)
    html = client.get(summary_url(match)).content.decode()
    text = page_text(html)
    assert text.count("Table settings") == 1
    for shown in (
        "Double Sir: on",
        "Ace rule: on",
        "Hidden trump: blind",
        "Goon court: 1 court, as any court",
        "Ace caller: ace of clubs",
        "Most deals: 2",
    ):
        assert shown.replace(": ", " ") in text.replace(": ", " "), shown


def test_summary_of_a_deal_in_play_hides_trump_and_indicator_R9_14_R9_15_1(client):
    """A blind indicator is laid as the deal starts: until its reveal the summary names no trump
    and no card, to the players and to anyone."""
    users = [UserFactory() for _ in range(4)]
    options = CourtPieceOptions(hidden_trump=HiddenTrump.BLIND)
    match = court_piece_match(options, seed=21, users=users)
    played = court_piece_play(match, until=lambda s: len(s.deal.tricks) == 2, reveals=False)
    deal = played.shadow.deal
    assert not deal.revealed
    hand = Hand.objects.get(match=match)
    assert hand.indicator == deal.indicator.text and hand.trump is None
    for viewer in [*users, None]:
        client.logout()
        if viewer is not None:
            client.force_login(viewer)
        html = client.get(summary_url(match)).content.decode()
        row = deal_rows(html)[1]
        assert "hidden, face down" in row and "being played" in row
        suit = deal.trump
        assert suit.plural not in row and suit.symbol not in row
        assert deal.indicator.text not in html


def test_summary_names_the_reveal_of_a_finished_deal_R9_14_2(client):
    """Once a deal is over its trump is history (R9.15.1), with who revealed it at which trick."""
    options = CourtPieceOptions(hidden_trump=HiddenTrump.CHOSEN)
    seed = seed_where(
        lambda s: s.deal.reveal is not None and s.deal.reveal.seat != s.deal.caller, options
    )
    match = court_piece_match(options, seed=seed)
    deal = court_piece_play(match, rng_seed=seed).deals[0]
    row = deal_rows(client.get(summary_url(match)).content.decode())[1]
    name = NAMES[deal.reveal.seat]
    assert f"asked for by {name} at trick {deal.reveal.trick + 1}" in row
    assert deal.trump.plural in row


def test_summary_of_double_sir_counts_collected_tricks_R9_12_5(client):
    match = court_piece_match(CourtPieceOptions(double_sir=True), seed=8)
    played = court_piece_play(match, rng_seed=8)
    result = played.deals[0].result
    line = match_summary_build(match=played.match, viewer=None).deals[0]
    assert line.tricks == list(result.side_tricks)
    assert sum(line.tricks) <= 13 and max(line.tricks) >= 7


def test_summary_query_count_is_fixed(client, django_assert_num_queries, kinds_record):
    match = imported_for(kinds_record, [None, None, None, None])
    short = imported_for(scripted_record([SIDE0_WON], target=1), [None, None, None, None])
    # Match and table, its importer, seats, deals, plays.
    for one in (match, short):
        with django_assert_num_queries(4):
            assert client.get(summary_url(one)).status_code == 200


# -- the profile's statistics ----------------------------------------------------------------------


def test_statistics_count_court_piece_by_side_R9_1_1():
    """Roya in seat 1 (side 1, with seat 3) loses the kinds match: 9 deals, of which she won
    the goon court, and suffered the 52-court and the seven-in-a-row court."""
    roya, sina = UserFactory(username="roya"), UserFactory(username="sina")
    document = scripted_record(KINDS_DEALS, target=53)
    imported_for(document, [None, roya, None, sina])
    record = player_record(user=roya)
    assert (record.played, record.won) == (1, 0)
    hands = hand_record(user=roya)
    verdict = check_court_piece_record(document)["hands"]
    assert hands.played == hands.deals == len(verdict) == 9
    assert hands.won == sum(1 for h in verdict if h["winner"] == 1) == 1
    assert (hands.courts_made, hands.courts_suffered) == (1, 2)
    assert hands.as_hakem == sum(1 for h in verdict if h["caller"] == 1)
    assert hands.kots_made == hands.kots_suffered == 0  # Kots are Hokm's (R5.2)
    stats = player_stats(user=roya)
    assert stats.partner is not None and stats.partner.user == sina  # partners sit opposite
    assert stats.partner.played == 1 and stats.partner.won == 0


def test_profile_page_shows_court_piece_statistics(client):
    roya = UserFactory(username="roya")
    imported_for(scripted_record(KINDS_DEALS, target=53), [roya, None, None, None])
    text = page_text(client.get(reverse("games:profile", args=["roya"])).content.decode())
    assert "Court Piece Deals played 9 Courts made 2 Courts suffered 1" in text
    assert "Games played 1 Games won 1" in text
