"""What the database holds of a seat's actions, and the check that every acknowledged move is in it
exactly once.

The functions read and write through Django's ORM. The tests on the run's own database call them
in the test process; the test on a private PostgreSQL cluster runs this module as a program with
that cluster's ``DATABASE_URL`` (``python -m tests.faults.ledger prepare 4``, ``... record 12:0``),
which prints JSON.
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from datetime import datetime
from typing import Any

from tests.faults.clients import SeatLog

#: The event kinds a seat's own decisions make (games.play.services._action_event_data).
ACTION_KINDS = {"call_trump", "discard", "keep_or_throw", "play_card"}


def players_create(count: int) -> list[dict[str, Any]]:
    """``count`` users, each with an API token: ``[{"user": id, "token": "hokm_..."}]``."""
    from accounts.models import User
    from accounts.tokens import token_create

    players = []
    for _ in range(count):
        index = User.objects.count()
        user = User.objects.create_user(
            username=f"fault{index}-{os.getpid()}", email=f"fault{index}-{os.getpid()}@example.com"
        )
        _, raw = token_create(user=user, name="fault test")
        players.append({"user": user.pk, "token": raw})
    return players


def match_record(match_id: int, seat: int) -> dict[str, Any]:
    """What is stored of a match and of one seat's actions in it, as JSON values."""
    from games.models import CardPlay, ClientAction, Match, MatchEvent

    match = Match.objects.get(pk=match_id)
    actions = ClientAction.objects.filter(match_id=match_id, seat=seat).order_by("client_seq")
    events = MatchEvent.objects.filter(match_id=match_id).order_by("version")
    plays = CardPlay.objects.filter(hand__match_id=match_id, seat=seat).order_by("played_at")
    return {
        "match": match_id,
        "seat": seat,
        "status": match.status,
        "version": match.version,
        "scores": list(match.scores),
        "target": match.target,
        "actions": [
            {"client_seq": a.client_seq, "action": a.action, "version": a.version} for a in actions
        ],
        "events": [
            {"version": e.version, "kind": e.kind, "data": e.data, "at": e.created_at.isoformat()}
            for e in events
        ],
        "plays": [[hand, card] for hand, card in plays.values_list("hand__number", "card")],
    }


def assert_exactly_once(log: SeatLog, record: dict[str, Any]) -> None:
    """Every move the server acknowledged is stored exactly once, as the client sent it; no
    move of the seat is stored without its client's id; the match ended (R7)."""
    where = f"match {record['match']}"
    assert record["status"] == "finished", (where, record["status"])
    assert max(record["scores"]) >= record["target"], where
    # The log of the match has one event for every version, none missing, none twice.
    versions = [event["version"] for event in record["events"]]
    assert versions == list(range(record["version"] + 1)), where

    stored = {action["client_seq"]: action for action in record["actions"]}
    for client_seq, applied, _ in log.acks:
        # An acknowledgement the database does not back would be a lost move.
        assert client_seq in stored, (where, "acknowledged but not stored", client_seq, applied)
        assert stored[client_seq]["action"] == log.sent[client_seq].action, (where, client_seq)
    for client_seq in stored:
        assert client_seq in log.sent, (where, "stored under an id never sent", client_seq)
        applied_acks = log.applied(client_seq).count(True)
        assert applied_acks <= 1, (where, "applied twice", client_seq, log.applied(client_seq))

    # Each stored action made exactly one change of the match: the event of its version is that
    # action; and every decision of the seat in the log is one of the stored actions (no clock
    # runs in these matches, so no computer decided for the person).
    events = {event["version"]: event for event in record["events"]}
    seat_events = [
        event
        for event in record["events"]
        if event["kind"] in ACTION_KINDS and event["data"]["seat"] == record["seat"]
    ]
    assert sorted(e["version"] for e in seat_events) == sorted(
        a["version"] for a in record["actions"]
    ), where
    for action in record["actions"]:
        event = events[action["version"]]
        assert event["kind"] == action["action"]["type"], (where, action, event)
        if event["kind"] == "play_card":
            assert event["data"]["card"] == action["action"]["card"], (where, action, event)
    # And each card the seat played is stored once, in the hand its event names.
    played = Counter(
        (events[a["version"]]["data"]["hand"], a["action"]["card"])
        for a in record["actions"]
        if a["action"]["type"] == "play_card"
    )
    assert Counter(tuple(play) for play in record["plays"]) == played, where
    assert all(count == 1 for count in played.values()), where


def computer_moves_at(record: dict[str, Any]) -> list[datetime]:
    """When the computer players of the match acted (the worker's steps)."""
    return [
        datetime.fromisoformat(event["at"])
        for event in record["events"]
        if event["kind"] in ACTION_KINDS and event["data"]["seat"] != record["seat"]
    ]


def _main(argv: list[str]) -> None:
    """``prepare N``: migrate the database and create N players with tokens;
    ``record MATCH:SEAT ...``: the records of those seats."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "hokm_site.settings")
    import django

    django.setup()
    command, *args = argv
    if command == "prepare":
        from django.core.management import call_command

        call_command("migrate", verbosity=0, interactive=False)
        print(json.dumps(players_create(int(args[0]))))
    elif command == "record":
        pairs = [arg.split(":") for arg in args]
        print(json.dumps([match_record(int(m), int(s)) for m, s in pairs]))
    else:
        raise SystemExit(f"unknown command {command!r}")


if __name__ == "__main__":
    _main(sys.argv[1:])
