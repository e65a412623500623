"""Fair deals on the replay (R8.4; RECORD.md, "Fair deals"): each finished hand of a match dealt
fairly carries its public block, seed revealed, and what its deal must reproduce, enough for
static/js/verify-deal.js to recompute it as scripts/verify_deal.py does (checked here with that
script's own ``check`` on the same data); a hand not over carries nothing of it, and no byte of
the page holds its server seed, nor the next hand's (``Match.next_fair``), to anyone.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.urls import reverse

from games.history.records import match_export_record
from games.models import Hand, Match, MatchSeat
from games.play import fairness
from games.play.services import SeatSpec, match_create, match_step
from tests.games.factories import TableFactory, UserFactory
from tests.test_verify_deal_script import load_script

pytestmark = pytest.mark.django_db

verify_deal = load_script()

PLAYERS = {"hokm4": 4, "hokm3": 3, "hokm2": 2, "hokm2-draw": 2, "court-piece": 4}


def _url(match: Match) -> str:
    return reverse("games:replay", kwargs={"match_id": match.pk})


def _page_data(html: str) -> dict[str, Any]:
    found = re.search(r'<script id="replay-data" type="application/json">(.*?)</script>', html)
    assert found, "the page embeds its data"
    return json.loads(found.group(1))


def _fair_match(variant: str, options: dict[str, str] | None = None, **kwargs: Any) -> Match:
    """A match dealt fairly (no seed given), computers in every seat, at a public table, of at
    least two hands: Hokm to 4 points (a Hakem Kot scores 3), Court Piece two deals to a target
    no deal reaches (a 52-court is 52)."""
    players = PLAYERS[variant]
    return match_create(
        variant=variant,
        target=60 if variant == "court-piece" else 4,
        seats=[SeatSpec(name=f"Bot {n}", computer_level="easy") for n in range(players)],
        options=options,
        max_deals=2 if variant == "court-piece" else None,
        table=TableFactory(variant=variant),
        client_seeds=[f"seat {n} says hi" for n in range(players)],
        **kwargs,
    )


def _play_out(match: Match) -> None:
    """Every step the worker would take, at once (tests/games/test_fair_live.py)."""
    for _ in range(3000):
        if not match_step(match=match.pk, rush=True):
            break
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED


def _as_record_part(data: dict[str, Any], hand: dict[str, Any]) -> dict[str, Any]:
    """A hand of the replay's data read as verify-deal.js reads it, in the shape of a record's
    hand, for scripts/verify_deal.py's ``check``."""
    cards = [list(held) for held in hand["cards"]]
    hidden = hand.get("hidden")
    if data.get("court_piece") and hidden and hidden["card"] not in cards[hand["caller"]]:
        cards[hand["caller"]].append(hidden["card"])  # kept apart by the replay (R9.14.3)
    dealt = hand["dealt"]
    part: dict[str, Any] = {
        "fair": hand["fair"],
        "hakem": hand["hakem"],
        "caller": hand.get("caller"),
        "first5": dealt["first_five"],
        "cards": cards,
        "hidden": hidden,
    }
    if "unseen" in dealt:
        part["unseen"] = dealt["unseen"]
    if "stock" in dealt:
        part["draw"] = {"dealer5": dealt["dealer_five"], "stock": dealt["stock"]}
    return part


def _verify(data: dict[str, Any], hand: dict[str, Any]) -> list[str]:
    mode = (hand.get("hidden") or {}).get("mode")
    record = {
        "variant": data["variant"],
        "players": data["seats"],
        "options": {"hidden_trump": mode} if mode else {},
    }
    return verify_deal.check(record, hand["number"] - 1, _as_record_part(data, hand))


# -- a finished match: every hand's block, seed revealed ----------------------------------------


@pytest.mark.parametrize(
    ("variant", "options"),
    [
        ("hokm4", None),
        ("hokm3", None),
        ("hokm2", None),
        ("hokm2-draw", None),
        ("court-piece", {"hidden_trump": "blind"}),
    ],
)
def test_a_finished_match_carries_each_hands_fair_block_R8_4(
    client, variant: str, options: dict[str, str] | None
) -> None:
    match = _fair_match(variant, options)
    _play_out(match)
    response = client.get(_url(match))  # signed out: a public table's match that is over
    assert response.status_code == 200
    html = response.content.decode()
    data = _page_data(html)
    rows = list(Hand.objects.filter(match=match).order_by("number"))
    assert data["fair"] is True and len(data["hands"]) == len(rows)
    assert set(data["text"]["verify"]) >= {"ok", "bad", "commit", "cards", "first_five", "later"}
    record = match_export_record(match=match)
    for hand, row, recorded in zip(data["hands"], rows, record["hands"], strict=True):
        assert row.status == Hand.Status.FINISHED
        assert hand["fair"] == fairness.public(row.fair, revealed=True)
        assert hand["fair"]["server_seed"] == row.fair["server_seed"]
        assert hand["fair"] == recorded["fair"]
        assert hand["dealt"]["first_five"] == recorded["first5"]
        # The deal recomputed from the page's data alone, by the standalone verifier's logic.
        assert _verify(data, hand) == [], hand["number"]
    assert "data-verify-button" in html and "js/verify-deal.js" in html


def test_a_changed_seed_or_card_does_not_verify_R8_4(client) -> None:
    """The same check as above, on data tampered with: the verifier is not a rubber stamp."""
    match = _fair_match("hokm4")
    _play_out(match)
    data = _page_data(client.get(_url(match)).content.decode())
    hand = data["hands"][0]
    assert _verify(data, hand) == []
    seeds = {
        **hand,
        "fair": {**hand["fair"], "client_seeds": ["x", *hand["fair"]["client_seeds"][1:]]},
    }
    assert "first5" in _verify(data, seeds)
    server = {**hand, "fair": {**hand["fair"], "server_seed": "0" * 64}}
    assert _verify(data, server) == ["commit is not the SHA-256 of server_seed"]
    other = {**hand, "number": 2}  # another hand's shuffle
    assert _verify(data, other)


def test_a_match_dealt_from_a_seed_offers_no_check(client) -> None:
    """Dealt before fair deals (a seed given, as old matches were): no block, no button."""
    match = _fair_match("hokm2", seed=7)
    _play_out(match)
    html = client.get(_url(match)).content.decode()
    data = _page_data(html)
    assert data["fair"] is False and "verify" not in data["text"]
    assert not any("fair" in hand or "dealt" in hand for hand in data["hands"])
    assert "data-verify" not in html and "verify-deal.js" not in html


def test_a_fair_match_costs_one_query_more_whatever_its_length(
    client, django_assert_num_queries
) -> None:
    """Match and table, seats, hands, plays, and the hands' fair blocks."""
    match = _fair_match("hokm2")
    _play_out(match)
    assert Hand.objects.filter(match=match).count() >= 2
    with django_assert_num_queries(5):
        assert client.get(_url(match)).status_code == 200


# -- a match in play: no secret seed in any byte --------------------------------------------------


def _secrets(match: Match) -> list[str]:
    """The server seeds nobody may see yet: the hand in play's, and the next hand's."""
    match.refresh_from_db()
    secrets = [
        hand.fair["server_seed"]
        for hand in Hand.objects.filter(match=match).exclude(status=Hand.Status.FINISHED)
        if hand.fair
    ]
    if match.next_fair:
        secrets.append(match.next_fair["server_seed"])
    return secrets


@pytest.mark.parametrize("variant", ["hokm4", "court-piece"])
def test_a_match_in_play_shows_no_secret_seed_R8_4(client, variant: str) -> None:
    """Step by step through a match, the replay as its player sees it: at a hand in play (some
    hand finished before it) and between hands (the next shuffle committed to, not dealt), no
    secret seed in the page's bytes; the finished hands' seeds are there."""
    match = _fair_match(variant, {"hidden_trump": "blind"} if variant == "court-piece" else None)
    user = UserFactory()
    # His seat left to the computer (R8.1), so that the match plays on by itself.
    MatchSeat.objects.filter(match=match, index=0).update(
        user=user, computer_level=None, status=MatchSeat.Status.LEFT
    )
    client.force_login(user)
    seen = {"in play": False, "between hands": False}
    for _ in range(3000):
        if not match_step(match=match.pk, rush=True):
            break
        match.refresh_from_db()
        finished = list(Hand.objects.filter(match=match, status=Hand.Status.FINISHED))
        current = Hand.objects.filter(match=match).order_by("number").last()
        between = bool(match.next_fair) and match.status == Match.Status.PLAYING
        in_play = current.status == Hand.Status.PLAYING and current.plays.exists()
        if not finished or not (between or in_play) or all(seen.values()):
            continue
        kind = "between hands" if between else "in play"
        if seen[kind]:
            continue
        seen[kind] = True
        page = client.get(_url(match)).content
        secrets = _secrets(match)
        assert secrets, kind
        for secret in secrets:
            assert secret.encode() not in page, kind
        data = _page_data(page.decode())
        assert data["fair"] is True and data["you"] == 0
        rows = Hand.objects.filter(match=match).order_by("number")
        for hand, row in zip(data["hands"], rows, strict=True):
            if row.status == Hand.Status.FINISHED:
                assert hand["fair"]["server_seed"] == row.fair["server_seed"]
                assert row.fair["server_seed"].encode() in page
                assert _verify(data, hand) == []
            else:
                assert "fair" not in hand and "dealt" not in hand and "cards" not in hand
    assert all(seen.values()), seen


def test_an_abandoned_match_keeps_its_unfinished_hands_seed(client) -> None:
    """A match over before its hand was: every hand face up (R8.3), but that hand never
    finished, so its seed was never revealed, and its block stays out of the page."""
    match = _fair_match("hokm2")
    while not Hand.objects.filter(match=match, status=Hand.Status.FINISHED).exists():
        assert match_step(match=match.pk, rush=True)
    while Match.objects.get(pk=match.pk).next_fair:
        assert match_step(match=match.pk, rush=True)  # the next hand dealt
    Match.objects.filter(pk=match.pk).update(status=Match.Status.ABANDONED, step_at=None)
    current = Hand.objects.filter(match=match).order_by("number").last()
    assert current.status == Hand.Status.PLAYING
    page = client.get(_url(match)).content
    assert current.fair["server_seed"].encode() not in page
    last = _page_data(page.decode())["hands"][-1]
    assert "cards" in last and "fair" not in last
