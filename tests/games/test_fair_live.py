"""Fair deals on the live site (R8.4; RECORD.md, "Fair deals"): every match the site starts is
dealt from fresh server seeds and the seats' client seeds; each hand's shuffle is committed to
before its deal and its seed revealed when it ends; the record carries the blocks and verifies,
with hokm_check and with the standalone verifier; a seat that never answers adds "".
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from games.engine.record import check_record
from games.history.records import match_export_record
from games.models import Hand, Match, MatchEvent
from games.play.services import (
    ClientSeedError,
    SeatSpec,
    match_client_seed,
    match_create,
    match_step,
)

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]

CASES = [
    ("hokm4", {}, False),
    ("hokm4", {}, True),  # R2.3: the draw for partners, whose record holds no flips
    ("hokm3", {}, False),
    ("hokm2", {}, False),
    ("hokm2-draw", {}, False),
    ("court-piece", {}, False),
    ("court-piece", {"hidden_trump": "blind"}, False),
]


def _computers(players: int) -> list[SeatSpec]:
    return [SeatSpec(name=f"Bot {n}", computer_level="easy") for n in range(players)]


def _play_out(match: Match, *, seeds: list[str] | None = None) -> None:
    """Every step the worker would take, at once; with ``seeds``, each seat answers every
    commitment with its seed before the deal, as the seats' clients do."""
    for _ in range(3000):
        match.refresh_from_db()
        if seeds and match.next_fair:
            for seat, seed in enumerate(seeds):
                match_client_seed(
                    match=match.pk, seat=seat, commit=match.next_fair["commit"], seed=seed
                )
        if not match_step(match=match.pk, rush=True):
            break
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED


@pytest.mark.parametrize(("variant", "options", "partner_draw"), CASES)
def test_a_match_dealt_fairly_verifies_hand_by_hand_R8_4(
    variant: str, options: dict, partner_draw: bool, tmp_path: Path
) -> None:
    players = 2 if variant.startswith("hokm2") else 3 if variant == "hokm3" else 4
    seeds = [f"seat {n}: {variant}" for n in range(players)]
    court_piece = variant == "court-piece"
    match = match_create(
        variant=variant,
        target=2,
        seats=_computers(players),
        options=options or None,
        # Courts are rare: two deals (R9.10.2) rather than two courts.
        max_deals=2 if court_piece else None,
        partner_draw=partner_draw,
        client_seeds=seeds,
    )
    _play_out(match, seeds=seeds)
    hands = list(Hand.objects.filter(match=match).order_by("number"))
    assert len(hands) >= 1
    # Each seat's seed; hand 0 after R2.3's re-seating has them in the new seats' order.
    assert all(hand.fair["client_seeds"] == seeds for hand in hands[1 if partner_draw else 0 :])
    assert sorted(hands[0].fair["client_seeds"]) == sorted(seeds)

    record = match_export_record(match=match)
    assert check_record(record)["valid"], check_record(record)
    for number, hand in enumerate(record["hands"]):
        assert set(hand["fair"]) == {"commit", "server_seed", "client_seeds"}, number
        assert hand["fair"]["client_seeds"] == hands[number].fair["client_seeds"]
    flips = record.get("hakem_draw") or record.get("dealer_draw")
    if partner_draw:
        assert flips is None or "fair" not in flips
    else:
        assert flips["fair"]["server_seed"]
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    verified = subprocess.run(
        [sys.executable, "-I", str(ROOT / "scripts" / "verify_deal.py"), str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert verified.returncode == 0, verified.stdout
    assert verified.stdout.count("OK") == len(record["hands"]) + (0 if partner_draw else 1)

    # A seed changed after the fact is caught.
    record["hands"][0]["fair"]["client_seeds"][0] = "tampered"
    assert not check_record(record)["valid"]


def test_each_shuffle_is_committed_before_its_deal_and_revealed_after_R8_4() -> None:
    match = match_create(variant="hokm2", target=4, seats=_computers(2))  # two hands at least
    _play_out(match)
    events = list(MatchEvent.objects.filter(match=match).order_by("version"))
    hands = {hand.number: hand for hand in Hand.objects.filter(match=match)}
    text = [json.dumps(event.data) for event in events]
    for number, hand in hands.items():
        seed = hand.fair["server_seed"]
        commit = hand.fair["commit"]
        dealt = next(
            i
            for i, e in enumerate(events)
            if e.data.get("hand") == number and e.kind in ("match_created", "hand_dealt")
        )
        ended = next(
            i
            for i, e in enumerate(events)
            if e.data.get("fair", {}).get("hand", {}).get("server_seed") == seed
        )
        # Nothing sent before the hand was over holds its seed ...
        assert not any(seed in t for t in text[:ended]), number
        # ... the deal named its commitment, and, past the first hand, an earlier event did.
        assert events[dealt].data["fair"]["hand"]["commit"] == commit
        if number:
            assert any(
                e.data.get("fair", {}).get("next_commit") == commit for e in events[:dealt]
            ), number
        assert ended > dealt


def test_a_seat_that_never_answers_adds_the_empty_string_R8_4() -> None:
    match = match_create(variant="hokm2", target=2, seats=_computers(2))
    _play_out(match, seeds=None)
    assert all(hand.fair["client_seeds"] == ["", ""] for hand in Hand.objects.filter(match=match))


def test_a_client_seed_is_checked_and_only_for_the_waiting_shuffle_R8_4() -> None:
    match = match_create(variant="hokm2", target=4, seats=_computers(2))  # two hands at least
    # Before any hand ends, no shuffle waits.
    with pytest.raises(ClientSeedError) as refused:
        match_client_seed(match=match.pk, seat=0, commit="0" * 64, seed="mine")
    assert refused.value.code == "stale_commit"
    while not Match.objects.get(pk=match.pk).next_fair:
        assert match_step(match=match.pk, rush=True)
    waiting = Match.objects.get(pk=match.pk).next_fair
    for bad in ("x" * 65, "a|b", "tab\there", "é"):
        with pytest.raises(ClientSeedError) as refused:
            match_client_seed(match=match.pk, seat=0, commit=waiting["commit"], seed=bad)
        assert refused.value.code == "bad_seed"
    assert Match.objects.get(pk=match.pk).next_fair == waiting  # nothing changed
    match_client_seed(match=match.pk, seat=1, commit=waiting["commit"], seed="lucky 7")
    assert match_step(match=match.pk, rush=True)  # the deal
    dealt = Hand.objects.filter(match=match).order_by("-number").first()
    assert dealt.fair["client_seeds"] == ["", "lucky 7"]
    assert dealt.fair["commit"] == waiting["commit"]
    assert Match.objects.get(pk=match.pk).next_fair == {}


def test_a_match_dealt_from_a_given_seed_has_no_fair_blocks() -> None:
    match = match_create(variant="hokm2", target=1, seats=_computers(2), seed=42)
    _play_out(match)
    record = match_export_record(match=match)
    assert check_record(record)["valid"]
    assert all("fair" not in hand for hand in record["hands"])


def test_the_hidden_cards_audit_catches_a_server_seed_sent_early_R8_4() -> None:
    from games.engine import get_variant, new_match
    from tests.leakcheck import Audit

    state = new_match(get_variant("hokm2"), seed=1, target=1)
    audit = Audit(hakem_draw=state.draw.to_json())
    audit.moment_add(state, version=3)
    secret = "ab" * 32
    audit.fair_secrets[3] = {secret}
    frame = {"type": "event", "version": 3, "data": {"kind": "chat", "text": secret}}
    audit.check_json("seat 0", 0, json.dumps(frame))
    assert [leak.what for leak in audit.leaks] == ["a fair shuffle's server seed"]
    # Once its hand is over, the seed is public.
    audit.leaks.clear()
    audit.fair_secrets[3] = set()
    audit.check_json("seat 0", 0, json.dumps(frame))
    assert audit.leaks == []


def _between_hands() -> tuple[Match, Any]:
    """A person's hokm2 match against a computer, in the pause after its first hand, the next
    shuffle sealed: computers played both seats until then (he left, R8.1)."""
    from games.play.services import match_seat_leave
    from tests.games.factories import UserFactory

    person = UserFactory()
    match = match_create(
        variant="hokm2",
        target=4,  # two hands at least: a Hakem Kot scores 3
        seats=[SeatSpec(name=person.username, user=person), *_computers(1)],
    )
    match_seat_leave(match=match.pk, seat=0)
    while not Match.objects.get(pk=match.pk).next_fair:
        assert match_step(match=match.pk, rush=True)
    return match, person


@pytest.mark.django_db(transaction=True)
async def test_a_program_answers_the_commitment_over_the_json_protocol_R8_4() -> None:
    """docs/protocol.md, "Fair deals": the state names ``next_commit`` in the pause before a
    deal; ``client_seed`` answers it (``client_seed_ok``), and the deal takes the seed."""
    from channels.db import database_sync_to_async

    from tests.live.match_sockets import connect, frame_of_type

    match, person = await database_sync_to_async(_between_hands)()
    socket = await connect(person, match.pk)
    state = await frame_of_type(socket, "state")
    commit = state["data"]["next_commit"]
    assert commit and len(commit) == 64
    # The waiting shuffle's seed is nowhere in what the program got.
    waiting = await database_sync_to_async(lambda: Match.objects.get(pk=match.pk).next_fair)()
    assert waiting["server_seed"] not in json.dumps(state)
    await socket.send_to(
        text_data=json.dumps({"type": "client_seed", "commit": commit, "seed": "x|y"})
    )
    assert (await frame_of_type(socket, "error"))["data"]["code"] == "bad_seed"
    await socket.send_to(
        text_data=json.dumps({"type": "client_seed", "commit": commit, "seed": "from a program"})
    )
    assert (await frame_of_type(socket, "client_seed_ok"))["data"] == {"commit": commit}
    await database_sync_to_async(match_step)(match=match.pk, rush=True)  # the deal
    dealt = await frame_of_type(socket, "event")
    assert dealt["data"]["event"]["kind"] == "hand_dealt"
    assert dealt["data"]["event"]["fair"]["hand"] == {
        "commit": commit,
        "client_seeds": ["from a program", ""],
    }
    assert dealt["data"]["next_commit"] is None
    await socket.send_to(
        text_data=json.dumps({"type": "client_seed", "commit": commit, "seed": "late"})
    )
    assert (await frame_of_type(socket, "error"))["data"]["code"] == "stale_commit"
    await socket.disconnect()


def test_the_table_shows_the_sealed_shuffle_and_a_seat_answers_it_R8_4(client) -> None:
    from django.urls import reverse

    from tests.accounts.players import client_for

    match, person = _between_hands()
    waiting = Match.objects.get(pk=match.pk).next_fair
    page = client_for(person).get(reverse("games:match", args=[match.pk])).content.decode()
    # The seat's page: the commitment, and the form its script sends its seed with.
    assert f'data-shuffle-commit="{waiting["commit"]}"' in page
    assert waiting["commit"][:12] in page
    assert waiting["server_seed"] not in page


def test_the_hand_just_ended_links_to_its_verification_R8_4() -> None:
    from django.urls import reverse

    from tests.accounts.players import client_for

    match, person = _between_hands()
    client = client_for(person)
    page = client.get(reverse("games:match", args=[match.pk])).content.decode()
    link = f"{reverse('games:replay', args=[match.pk])}#h1"
    assert f'href="{link}"' in page, "no way from the table to verify the hand just ended"
    replay = client.get(reverse("games:replay", args=[match.pk]))
    assert replay.status_code == 200
    revealed = Hand.objects.get(match=match, number=0).fair["server_seed"]
    assert revealed in replay.content.decode(), "the replay cannot verify the hand"
    # And from the history, once the match is over or while it is played.
    history = client.get(reverse("games:my_games")).content.decode()
    assert f'href="{reverse("games:replay", args=[match.pk])}#h1"' in history
