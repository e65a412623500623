"""Court Piece (R9) over the JSON protocol: whole matches under every option mix, played by four
people and watched by a spectator, never showing a card a socket may not see (R8.3, R9.15);
its own refusals come back as error frames and change nothing."""

from __future__ import annotations

import json
import random

import pytest
from channels.db import database_sync_to_async

from games.engine import CourtPieceMatch, CourtPieceOptions, HiddenTrump, Suit
from games.models import Match, Table
from games.play.selectors import match_state_build
from games.play.services import SeatSpec, match_create, match_deal_next_hand
from tests.games.factories import UserFactory
from tests.live.match_sockets import CARD, connect, receive, until_version

pytestmark = pytest.mark.django_db(transaction=True)

MIXES = {
    "plain": CourtPieceOptions(),
    "double-sir-ace-rule": CourtPieceOptions(double_sir=True, ace_rule=True),
    "chosen": CourtPieceOptions(hidden_trump=HiddenTrump.CHOSEN, goon_court=False),
    "blind-double-sir": CourtPieceOptions(hidden_trump=HiddenTrump.BLIND, double_sir=True),
    "ace-caller": CourtPieceOptions(ace_caller=Suit.DIAMONDS),
}


def court_match(options: CourtPieceOptions, *, seed: int = 9):
    users = [UserFactory() for _ in range(4)]
    table = Table.objects.create(
        name="t", variant="court-piece", target=1, options=options.to_json()
    )
    match = match_create(
        variant="court-piece",
        target=1,
        max_deals=2,
        seed=seed,
        table=table,
        options=options.to_json(),
        seats=[SeatSpec(name=u.username, user=u) for u in users],
    )
    return match, users


def may_see(match_id: int, seat: int | None) -> set[str]:
    """R8.3 and R9.15 now: own cards, the trick on the table, the tricks played (under Double
    Sir only the one just taken, until the next is led), the indicator once revealed or, under
    chosen, to its caller."""
    state = match_state_build(match=Match.objects.get(pk=match_id))
    assert isinstance(state, CourtPieceMatch)
    deal = state.deal
    allowed = {c.text for c in deal.current}
    if not deal.options.double_sir:
        allowed |= {c.text for t in deal.tricks for c in t.cards}
    elif deal.tricks and not deal.current:
        allowed |= {c.text for c in deal.tricks[-1].cards}
    if seat is not None:
        allowed |= {c.text for c in deal.holdings[seat]}
    if deal.indicator is not None and (
        deal.revealed or (seat == deal.caller and deal.options.hidden_trump is HiddenTrump.CHOSEN)
    ):
        allowed.add(deal.indicator.text)
    return allowed


async def check(frames: list[dict], match_id: int, seat: int | None) -> None:
    allowed = await database_sync_to_async(may_see)(match_id, seat)
    for frame in frames:
        frame = json.loads(json.dumps(frame))
        view = frame["data"].get("view")
        if view is not None:
            view.pop("draw")  # the first-dealer flips are public (R9.2.1)
        shown = set(CARD.findall(json.dumps(frame)))
        assert shown <= allowed, (seat, sorted(shown - allowed))


@pytest.mark.parametrize("name", list(MIXES))
async def test_players_play_a_whole_court_piece_match_over_the_json_protocol_R9(name, settings):
    settings.HOKM_SOCKET_RATE_PER_SECOND = 1000
    options = MIXES[name]
    match, users = await database_sync_to_async(court_match)(options)
    clients = [await connect(user, match.pk) for user in users]
    spectator = await connect(await database_sync_to_async(UserFactory)(), match.pk)
    sockets, seats = clients + [spectator], [0, 1, 2, 3, None]
    latest = {}
    for index, client in enumerate(sockets):
        frame = await receive(client)
        assert frame["type"] == "state" and frame["data"]["seat"] == seats[index]
        view = frame["data"]["view"]
        assert view["variant"] == "court-piece" and view["options"] == options.to_json()
        assert ("hand" in view["deal"]) == (seats[index] is not None)
        await check([frame], match.pk, seats[index])
        latest[index] = frame
    rng = random.Random(name)
    client_seq, asked = 0, 0
    for _ in range(800):
        view = latest[0]["data"]["view"]
        if view["over"]:
            break
        version = latest[0]["version"]
        if view["deal"]["phase"] == "done":
            await database_sync_to_async(match_deal_next_hand)(match=match.pk)
        else:
            seat = view["deal"]["to_act"]
            legal = latest[seat]["data"]["view"]["deal"]["legal"]
            assert legal and all(a["seat"] == seat for a in legal)
            reveals = [a for a in legal if a["type"] == "reveal_trump"]
            action = reveals[0] if reveals and rng.random() < 0.5 else rng.choice(legal)
            asked += action["type"] == "reveal_trump"
            client_seq += 1
            await clients[seat].send_to(
                text_data=json.dumps(
                    {
                        "type": "action",
                        "client_seq": client_seq,
                        "version": version,
                        "action": {k: v for k, v in action.items() if k != "seat"},
                    }
                )
            )
            ack = await receive(clients[seat])
            assert ack["type"] == "ack", ack
        for index, client in enumerate(sockets):
            frames = await until_version(client, version + 1)
            await check(frames, match.pk, seats[index])
            latest[index] = frames[-1]
    else:
        raise AssertionError("the match did not end")
    stored = await database_sync_to_async(Match.objects.get)(pk=match.pk)
    assert stored.status == Match.Status.FINISHED
    final = latest[4]["data"]["view"]
    assert final["over"] and final["winner"] == stored.winner_side
    if options.hidden_trump is not HiddenTrump.OFF:
        assert asked >= 1  # trump was asked for over the socket (R9.14.2)
    for client in sockets:
        await client.disconnect()


@pytest.mark.parametrize(
    ("options", "action", "code"),
    [
        (CourtPieceOptions(), {"type": "choose_indicator", "card": "AS"}, "wrong_phase"),
        (CourtPieceOptions(), {"type": "reveal_trump"}, "wrong_phase"),
        (CourtPieceOptions(), {"type": "discard", "cards": ["AS"]}, "illegal"),
        (CourtPieceOptions(), {"type": "choose_indicator"}, "bad_action"),
        (
            CourtPieceOptions(hidden_trump=HiddenTrump.CHOSEN),
            {"type": "choose_indicator", "card": "XX"},
            "bad_action",
        ),
        (
            CourtPieceOptions(hidden_trump=HiddenTrump.CHOSEN),
            {"type": "call_trump", "suit": "S"},
            "wrong_phase",
        ),
    ],
)
async def test_refused_court_piece_actions_get_errors_and_change_nothing_R9_14(
    options, action, code
):
    match, users = await database_sync_to_async(court_match)(options)
    caller = await database_sync_to_async(lambda: match.hands.get().hakem)()
    client = await connect(users[caller], match.pk)
    state = await receive(client)
    version = state["version"]
    await client.send_to(
        text_data=json.dumps({"type": "action", "client_seq": 1, "action": action})
    )
    error = await receive(client)
    assert error["type"] == "error" and error["data"]["code"] == code, error
    stored = await database_sync_to_async(Match.objects.get)(pk=match.pk)
    assert stored.version == version
    await client.disconnect()


async def test_an_indicator_not_among_the_first_five_is_refused_R9_14_1():
    options = CourtPieceOptions(hidden_trump=HiddenTrump.CHOSEN)
    match, users = await database_sync_to_async(court_match)(options)
    caller = await database_sync_to_async(lambda: match.hands.get().hakem)()
    client = await connect(users[caller], match.pk)
    state = await receive(client)
    held = set(state["data"]["view"]["deal"]["hand"])
    other = next(c for c in ("AS", "KH", "2C", "7D", "TS", "9H") if c not in held)
    await client.send_to(
        text_data=json.dumps(
            {
                "type": "action",
                "client_seq": 1,
                "action": {"type": "choose_indicator", "card": other},
            }
        )
    )
    error = await receive(client)
    assert error["data"]["code"] == "invalid_indicator"
    assert other in error["data"]["message"] or "first 5" in error["data"]["message"]
    await client.disconnect()


async def test_a_late_spectator_does_not_read_the_pile_from_the_log_R9_15_1():
    """Under Double Sir the events of the cards now face down in the pile are not re-sent with
    their cards: not to a spectator who joins late with ?since=0, nor on a resync."""
    options = CourtPieceOptions(double_sir=True)
    match, users = await database_sync_to_async(court_match)(options, seed=4)

    def play_three_tricks_and_a_lead() -> None:
        from games.engine import court_piece_legal_actions
        from games.play.services import match_apply_action

        for _ in range(200):
            state = match_state_build(match=Match.objects.get(pk=match.pk))
            if len(state.deal.tricks) >= 3 and len(state.deal.current) == 1:
                return
            action = court_piece_legal_actions(state)[0]
            match_apply_action(match=match.pk, seat=action.seat, action=action)
        raise AssertionError("never reached the fourth trick")

    await database_sync_to_async(play_three_tricks_and_a_lead)()
    state = await database_sync_to_async(
        lambda: match_state_build(match=Match.objects.get(pk=match.pk))
    )()
    in_pile = {c.text for t in state.deal.tricks for c in t.cards}
    late = await connect(await database_sync_to_async(UserFactory)(), match.pk, query="since=0")
    frame = await receive(late)
    assert frame["type"] == "state" and frame["data"]["events"]
    plays = [e for e in frame["data"]["events"] if e["kind"] == "play_card"]
    assert len(plays) == 13
    assert [e["card"] for e in plays[:12]] == [None] * 12
    assert plays[12]["card"] == state.deal.current[0].text  # the lead on the table is seen
    shown = set(CARD.findall(json.dumps(frame["data"]["events"])))
    assert not shown & in_pile
    await late.send_to(text_data=json.dumps({"type": "resync", "since": 0}))
    again = await receive(late)
    assert not set(CARD.findall(json.dumps(again["data"]["events"]))) & in_pile
    await late.disconnect()
