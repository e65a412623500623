"""The reference client of scripts/ plays a whole match against a real server over the network."""

import subprocess
import sys
from types import ModuleType

import pytest

from accounts.models import User
from accounts.tokens import token_create
from games.models import Match
from tests.games.factories import UserFactory
from tests.live_server import ROOT

pytestmark = pytest.mark.django_db(transaction=True)


def run_reference_client(
    live_server_url: str, user: User, *options: str
) -> subprocess.CompletedProcess[str]:
    """scripts/hokm_client.py run to its end against the live server, signed in with a new API
    token of ``user``, with ``options`` after the server and the token."""
    _, token = token_create(user=user, name="reference client")
    return subprocess.run(
        [sys.executable, "scripts/hokm_client.py", "--server", live_server_url]
        + ["--token", token, *options],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
    )


def reference_client_module() -> ModuleType:
    """scripts/hokm_client.py imported as a module, for its functions."""
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import hokm_client
    finally:
        sys.path.pop(0)
    return hokm_client


@pytest.mark.parametrize("variant", ["hokm4", "hokm2-draw"])
def test_reference_client_plays_a_whole_match_with_a_token(live_server_url, variant):
    user = UserFactory()
    done = run_reference_client(live_server_url, user, "--variant", variant, "--target", "2")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "match over" in done.stdout
    match = Match.objects.get(seats__user=user)
    assert match.status == Match.Status.FINISHED
    assert match.variant == variant and max(match.scores) >= 2


def test_reference_client_plays_court_piece_with_hidden_trump_and_double_sir_R9(live_server_url):
    user = UserFactory()
    done = run_reference_client(
        live_server_url,
        user,
        "--variant",
        "court-piece",
        "--option",
        "double_sir=true",
        "--option",
        "hidden_trump=chosen",
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "match over" in done.stdout and "deal 1: side" in done.stdout
    match = Match.objects.get(seats__user=user)
    assert match.status == Match.Status.FINISHED
    assert match.variant == "court-piece" and match.target == 1 and max(match.scores) >= 1
    assert match.options["double_sir"] is True and match.options["hidden_trump"] == "chosen"


def test_a_bad_token_is_refused(live_server_url):
    import json
    import urllib.error
    import urllib.request

    request = urllib.request.Request(
        live_server_url + "/api/matches/",
        data=b"{}",
        headers={"Authorization": "Bearer hokm_not_a_token"},
        method="POST",
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    assert refused.value.code == 401
    assert json.load(refused.value)["error"]["code"] == "unauthorized"


def test_reference_client_reconnects_and_catches_up_R8_2(live_server_url):
    """The client drops its connection mid-match, reconnects naming the last version it saw, is
    sent the events it missed, and plays on to the end."""
    user = UserFactory()
    done = run_reference_client(
        live_server_url, user, "--variant", "hokm4", "--target", "1", "--drop-after", "3"
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "dropping the connection at version" in done.stdout
    assert "reconnecting in" in done.stdout
    assert "match over" in done.stdout
    match = Match.objects.get(seats__user=user)
    assert match.status == Match.Status.FINISHED


def test_backoff_grows_and_is_jittered():
    import random

    hokm_client = reference_client_module()
    rng = random.Random(7)
    delays = [[hokm_client.backoff_delay(a, rng=rng) for _ in range(200)] for a in range(8)]
    caps = [min(hokm_client.BACKOFF_CAP, hokm_client.BACKOFF_BASE * 2**a) for a in range(8)]
    for attempt, (samples, cap) in enumerate(zip(delays, caps, strict=True)):
        assert all(0 <= d <= cap for d in samples), attempt
        assert len(set(samples)) == len(samples)  # jitter: no two clients wait alike
        assert max(samples) > cap * 0.8  # and the cap is reached
    assert caps[-1] == hokm_client.BACKOFF_CAP


def test_the_reference_client_backs_off_after_server_errors_and_resets_on_a_state(monkeypatch):
    """A server that cannot take messages (its database restarting) answers ``server_error``:
    the client waits longer each time before it asks for the state again, not as fast as the
    rate cap allows, and starts afresh once a state comes."""
    import asyncio
    import json

    hokm_client = reference_client_module()
    waits: list[float] = []
    sent: list[dict] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    class Socket:
        async def send(self, text: str) -> None:
            sent.append(json.loads(text))

    monkeypatch.setattr(hokm_client.asyncio, "sleep", sleep)
    monkeypatch.setattr(hokm_client, "backoff_delay", lambda attempt, rng=None: float(attempt))
    game = hokm_client._Game(quiet=True)
    error = {"type": "error", "version": 3, "data": {"code": "server_error", "message": "x"}}
    state = {
        "type": "state",
        "version": 3,
        "data": {
            "seat": 0,
            "view": {"results": [], "over": False, "hand": {"to_act": 1, "legal": []}},
        },
    }

    async def exchange() -> None:
        for _ in range(3):
            await game.take(Socket(), error)
        await game.take(Socket(), state)
        await game.take(Socket(), error)

    asyncio.run(exchange())

    assert waits == [0.0, 1.0, 2.0, 0.0]
    assert [message["type"] for message in sent] == ["resync"] * 4
