"""The match WebSocket consumers: whole matches over the JSON protocol, at-most-once actions,
bad input, and what each socket may see (R8.3)."""

from __future__ import annotations

import json
import threading

import pytest
from channels.db import database_sync_to_async
from django.db import connection

from games.engine import CallTrump, Card, PlayCard, Suit, legal_actions
from games.models import CardPlay, ClientAction, Match
from games.play.selectors import match_state_build
from games.play.services import (
    SeatSpec,
    match_client_action,
    match_create,
    match_deal_next_hand,
)
from tests.games.factories import UserFactory
from tests.live.match_sockets import (
    check_frames,
    connect,
    make_match,
    receive,
    until_version,
)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("variant", ["hokm4", "hokm2-draw", "hokm3"])
async def test_players_play_a_whole_match_over_the_json_protocol_R8_3(variant, settings):
    # These clients act the instant it is their turn, far faster than people or the rate limit.
    settings.HOKM_SOCKET_RATE_PER_SECOND = 1000
    match, users = await database_sync_to_async(make_match)(variant, target=2)
    clients = [await connect(user, match.pk) for user in users]
    spectator_user = await database_sync_to_async(UserFactory)()
    spectator = await connect(spectator_user, match.pk)
    sockets = clients + [spectator]
    seats = list(range(len(users))) + [None]
    latest = {}
    for index, client in enumerate(sockets):
        frame = await receive(client)
        assert frame["type"] == "state" and frame["data"]["seat"] == seats[index]
        await check_frames([frame], match.pk, seats[index])
        latest[index] = frame
    assert "hand" not in latest[len(users)]["data"]["view"]["hand"]  # a spectator: no hand
    client_seq = 0
    for _ in range(2000):
        view = latest[0]["data"]["view"]
        if view["over"]:
            break
        version = latest[0]["version"]
        if view["hand"]["phase"] == "done":
            await database_sync_to_async(match_deal_next_hand)(match=match.pk)
        else:
            seat = view["hand"]["to_act"]
            legal = latest[seat]["data"]["view"]["hand"]["legal"]
            assert legal and all(a["seat"] == seat for a in legal)
            client_seq += 1
            await clients[seat].send_to(
                text_data=json.dumps(
                    {
                        "type": "action",
                        "client_seq": client_seq,
                        "version": version,
                        "action": legal[-1],
                    }
                )
            )
            ack = await receive(clients[seat])
            assert ack["type"] == "ack", ack
            assert ack["data"] == {"client_seq": client_seq, "applied": True}
        for index, client in enumerate(sockets):
            frames = await until_version(client, version + 1)
            await check_frames(frames, match.pk, seats[index])
            latest[index] = frames[-1]
            assert frames[-1]["type"] == "event"
    else:
        raise AssertionError("the match did not end")
    stored = await database_sync_to_async(Match.objects.get)(pk=match.pk)
    assert stored.status == Match.Status.FINISHED
    assert max(stored.scores) >= 2
    for client in sockets:
        await client.disconnect()


async def test_a_resent_action_is_acknowledged_again_and_applied_once():
    match, users = await database_sync_to_async(make_match)("hokm2")
    state = await database_sync_to_async(match_state_build)(match=match)
    seat = state.hand.to_act
    client = await connect(users[seat], match.pk)
    await receive(client)
    message = json.dumps(
        {"type": "action", "client_seq": 7, "action": {"type": "call_trump", "suit": "S"}}
    )
    for attempt in range(3):
        await client.send_to(text_data=message)
        frames = []
        while True:
            frame = await receive(client)
            frames.append(frame)
            if frame["type"] == "ack":
                break
        assert frame["data"] == {"client_seq": 7, "applied": attempt == 0}
    stored = await database_sync_to_async(Match.objects.get)(pk=match.pk)
    assert stored.version == 1
    assert await database_sync_to_async(ClientAction.objects.count)() == 1
    await client.disconnect()


def test_two_plays_for_one_seat_at_the_same_moment_apply_exactly_once(settings):
    match, users = make_match("hokm2")
    hakem = match_state_build(match=match).hand.to_act
    match_client_action(
        match=match.pk, seat=hakem, action=CallTrump(hakem, Suit.HEARTS), client_seq=1
    )
    state = match_state_build(match=Match.objects.get(pk=match.pk))
    cards = [action.card for action in legal_actions(state.hand)]
    barrier = threading.Barrier(2)
    outcomes: list[str] = []

    def play(card: Card, client_seq: int) -> None:
        try:
            barrier.wait()
            match_client_action(
                match=match.pk, seat=hakem, action=PlayCard(hakem, card), client_seq=client_seq
            )
            outcomes.append("applied")
        except Exception as error:  # the loser is refused: not its turn, or a stale version
            outcomes.append(type(error).__name__)
        finally:
            connection.close()

    threads = [
        threading.Thread(target=play, args=(cards[0], 2)),
        threading.Thread(target=play, args=(cards[1], 3)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["NotYourTurnError", "applied"], outcomes
    assert CardPlay.objects.filter(hand__match=match).count() == 1
    assert Match.objects.get(pk=match.pk).version == 2


BAD_FRAMES = [
    ("not json", "bad_json"),
    ("[1, 2]", "bad_message"),
    ('{"type": "dance"}', "unknown_type"),
    ('{"type": "action"}', "bad_message"),
    ('{"type": "action", "client_seq": -1, "action": {}}', "bad_message"),
    ('{"type": "action", "client_seq": 1, "action": {"type": "fly"}}', "bad_action"),
    (
        '{"type": "action", "client_seq": 1, "action": {"type": "play_card", "card": "ZZ"}}',
        "bad_action",
    ),
    (
        '{"type": "action", "client_seq": 1, "action": {"type": "call_trump", "suit": "S", '
        '"seat": 9}}',
        "wrong_seat",
    ),
    (
        '{"type": "action", "client_seq": 1, "action": {"type": "play_card", "card": "AS"}}',
        "wrong_phase",
    ),
    (
        '{"type": "action", "client_seq": 1, "version": 99, "action": {"type": "call_trump", '
        '"suit": "S"}}',
        "stale_version",
    ),
    (
        '{"type": "action", "client_seq": 1, "action": {"type": "discard", "cards": []}}',
        "wrong_phase",
    ),
    ("[" * 10_000, "too_large"),
    (
        '{"type": "action", "client_seq": 1, "action": ' + "[" * 1000 + "]" * 1000 + "}",
        "bad_json",
    ),
]


@pytest.mark.parametrize(("text", "code"), BAD_FRAMES)
async def test_bad_input_gets_an_error_frame_and_changes_nothing(text, code):
    match, users = await database_sync_to_async(make_match)("hokm4")
    state = await database_sync_to_async(match_state_build)(match=match)
    client = await connect(users[state.hand.to_act], match.pk)
    await receive(client)
    await client.send_to(text_data=text)
    frame = await receive(client)
    while frame["type"] == "state":
        frame = await receive(client)
    assert frame["type"] == "error" and frame["data"]["code"] == code, frame
    assert "Traceback" not in frame["data"]["message"]
    stored = await database_sync_to_async(Match.objects.get)(pk=match.pk)
    assert stored.version == 0
    await client.send_to(text_data='{"type": "ping"}')  # the socket survives
    frame = await receive(client)
    while frame["type"] != "pong":
        frame = await receive(client)
    await client.disconnect()


async def test_out_of_turn_revoke_and_card_not_held_are_refused_with_reasons_R4_2():
    match, users = await database_sync_to_async(make_match)("hokm2")
    state = await database_sync_to_async(match_state_build)(match=match)
    hakem = state.hand.to_act
    other = 1 - hakem
    hakem_client = await connect(users[hakem], match.pk)
    other_client = await connect(users[other], match.pk)
    await receive(hakem_client)
    await receive(other_client)

    async def send(client, seq, action):
        await client.send_to(
            text_data=json.dumps({"type": "action", "client_seq": seq, "action": action})
        )
        while True:
            frame = await receive(client)
            if frame["type"] in ("ack", "error"):
                return frame

    frame = await send(other_client, 1, {"type": "call_trump", "suit": "H"})
    assert frame["data"]["code"] == "not_your_turn"
    frame = await send(hakem_client, 1, {"type": "call_trump", "suit": "H"})
    assert frame["type"] == "ack"
    state = await database_sync_to_async(match_state_build)(
        match=await database_sync_to_async(Match.objects.get)(pk=match.pk)
    )
    hand = state.hand
    not_held = next(c for c in hand.holdings[other])
    frame = await send(hakem_client, 2, {"type": "play_card", "card": not_held.text})
    assert frame["data"]["code"] == "card_not_held"
    assert frame["data"]["message"] == f"you do not hold {not_held.text}"
    # Lead a suit the other seat holds, then try to revoke.
    for card in hand.holdings[hakem]:
        follow = [c for c in hand.holdings[other] if c.suit == card.suit]
        off = [c for c in hand.holdings[other] if c.suit != card.suit]
        if follow and off:
            break
    frame = await send(hakem_client, 3, {"type": "play_card", "card": card.text})
    assert frame["type"] == "ack"
    frame = await send(other_client, 2, {"type": "play_card", "card": off[0].text})
    assert frame["data"]["code"] == "must_follow_suit"
    assert card.suit.plural in frame["data"]["message"]
    stored = await database_sync_to_async(Match.objects.get)(pk=match.pk)
    assert stored.version == 2
    await hakem_client.disconnect()
    await other_client.disconnect()


async def test_spectators_see_no_hand_and_are_refused_where_not_allowed_R8_3():
    match, users = await database_sync_to_async(make_match)("hokm4", spectators=False)
    outsider = await database_sync_to_async(UserFactory)()
    client = await connect(outsider, match.pk)
    frame = await receive(client)
    assert frame["type"] == "error" and frame["data"]["code"] == "forbidden"
    closed = await client.receive_output(timeout=5)
    assert closed == {"type": "websocket.close", "code": 4403}
    missing = await connect(outsider, 999_999)
    frame = await receive(missing)
    assert frame["data"]["code"] == "not_found"


async def test_computer_players_move_on_their_own(settings):
    settings.HOKM_AUTOPLAY = "inline"
    user = await database_sync_to_async(UserFactory)()

    def create():
        return match_create(
            variant="hokm4",
            target=1,
            seed=11,
            seats=[SeatSpec(name=user.username, user=user)]
            + [SeatSpec(name=f"Computer {i}", computer_level="medium") for i in (1, 2, 3)],
        )

    match = await database_sync_to_async(create)()
    client = await connect(user, match.pk)
    seq = 0
    while True:
        frame = await receive(client)
        view = frame["data"].get("view")
        if view is None:
            continue
        if view["over"]:
            break
        hand = view["hand"]
        if hand["to_act"] == 0 and frame["type"] in ("state", "event"):
            seq += 1
            await client.send_to(
                text_data=json.dumps(
                    {"type": "action", "client_seq": seq, "action": hand["legal"][0]}
                )
            )
    stored = await database_sync_to_async(Match.objects.get)(pk=match.pk)
    assert stored.status == Match.Status.FINISHED
    await client.disconnect()


async def test_a_flood_of_messages_is_rate_limited_then_closed():
    match, users = await database_sync_to_async(make_match)("hokm2")
    client = await connect(users[0], match.pk)
    await receive(client)
    codes = []
    for _ in range(200):
        await client.send_to(text_data='{"type": "ping"}')
    while True:
        output = await client.receive_output(timeout=5)
        if output["type"] == "websocket.close":
            assert output["code"] == 4429
            break
        codes.append(json.loads(output["text"])["type"])
    assert "pong" in codes and codes.count("error") >= 1
