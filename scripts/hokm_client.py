#!/usr/bin/env python3
"""A reference client: plays a whole Hokm or Court Piece match over the network with a token.

It starts a match against computer players (``POST /api/matches/``), then plays its seat over the
JSON WebSocket protocol of docs/protocol.md, deciding with the greedy computer player. Run it from
the project root (it imports ``games.bots.greedy``, which is pure Python):

    .venv/bin/python scripts/hokm_client.py --server http://127.0.0.1:8000 --token hokm_...

With ``--variant court-piece`` it plays Court Piece (R9), its table settings given as
``--option double_sir=true --option hidden_trump=chosen`` (docs/protocol.md, "Court Piece").

It prints one line per hand or deal and the final score, and exits 0 when the match is over.
When the connection drops it reconnects with exponential backoff and jitter, naming the last
version it saw, and goes on where it was (R8.2).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import websockets  # noqa: E402

from games.bots.greedy import greedy_action  # noqa: E402
from games.engine import to_json  # noqa: E402


def start_match(
    server: str,
    token: str,
    variant: str,
    target: int | None,
    options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    body: dict[str, Any] = {"variant": variant}
    if target is not None:
        body["target"] = target
    if options:
        body["options"] = options
    request = urllib.request.Request(
        f"{server.rstrip('/')}/api/matches/",
        data=json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


#: Reconnection (R8.2): exponential backoff with full jitter, as the web page does.
BACKOFF_BASE = 0.5
BACKOFF_CAP = 30.0
#: Give up after this many failed connection attempts in a row.
MAX_ATTEMPTS = 12


def backoff_delay(attempt: int, *, rng: random.Random | None = None) -> float:
    """Seconds to wait before reconnection attempt ``attempt`` (0, 1, 2...): uniformly random up
    to an exponentially growing cap, so clients dropped together do not return together."""
    return (rng or random).uniform(0, min(BACKOFF_CAP, BACKOFF_BASE * 2**attempt))


async def play(
    server: str,
    token: str,
    socket_path: str,
    *,
    quiet: bool = False,
    drop_after: int | None = None,
) -> dict:
    """Play the seat to the end of the match, reconnecting whenever the connection drops.

    A reconnection names the last version seen (``?since=``): the server sends the events missed
    and the state. ``drop_after`` closes the connection after that many frames, once, to show a
    reconnection (tests).
    """
    url = server.replace("http://", "ws://").replace("https://", "wss://").rstrip("/")
    headers = {"Authorization": f"Bearer {token}"}
    game = _Game(quiet=quiet)
    attempt = 0
    while True:
        address = url + socket_path
        if game.version is not None:
            address += f"?since={game.version}"
        try:
            async with websockets.connect(address, additional_headers=headers) as socket:
                attempt = 0
                # An action sent before the drop may not have arrived: the version says so
                # (expected_version refuses it if it did), so decide again on what comes.
                game.decided_at = None
                frames = 0
                async for raw in socket:
                    result = await game.take(socket, json.loads(raw))
                    if result is not None:
                        return result
                    frames += 1
                    if drop_after is not None and frames >= drop_after:
                        drop_after = None
                        if not quiet:
                            print(f"dropping the connection at version {game.version}")
                        await socket.close()
                        break
                else:
                    if not quiet:
                        print("the server closed the connection", file=sys.stderr)
        except (OSError, websockets.ConnectionClosedError, websockets.InvalidStatus) as error:
            if isinstance(error, websockets.InvalidStatus) and error.response.status_code < 500:
                raise SystemExit(f"the server refused the connection: {error}") from None
            print(f"connection lost: {error}", file=sys.stderr)
        if attempt >= MAX_ATTEMPTS:
            raise SystemExit("the server cannot be reached: giving up")
        delay = backoff_delay(attempt)
        attempt += 1
        if not quiet:
            print(f"reconnecting in {delay:.1f} s (since version {game.version})")
        await asyncio.sleep(delay)


class _Game:
    """What the client knows of its match between frames, across reconnections."""

    def __init__(self, *, quiet: bool) -> None:
        self.quiet = quiet
        self.version: int | None = None  # the last state seen
        self.client_seq = 0
        self.decided_at: int | None = None  # the version the last action was sent for
        self.hands_reported = 0
        self.missed = 0  # events caught up on after reconnections
        self.server_errors = 0  # in a row, since the last state

    async def take(self, socket: Any, message: dict[str, Any]) -> dict | None:
        """Handle one frame; returns the final view once the match is over."""
        kind, data = message["type"], message["data"]
        if kind == "error":
            print(f"refused: {data['message']} ({data['code']})", file=sys.stderr)
            if data["code"] == "rate_limited":
                await asyncio.sleep(1)  # the server refills a token every 0.1 s
            elif data["code"] == "server_error":
                # The server could not take it (its database restarting, say): wait longer each
                # time before asking again, instead of asking as fast as the rate cap allows.
                await asyncio.sleep(backoff_delay(self.server_errors))
                self.server_errors += 1
            self.decided_at = None  # decide again on the fresh state
            await socket.send(json.dumps({"type": "resync", "since": self.version}))
            return None
        if kind not in ("state", "event"):
            return None
        self.server_errors = 0
        if kind == "state" and self.version is not None and data.get("events"):
            self.missed += len(data["events"])
            if not self.quiet:
                print(f"caught up on {len(data['events'])} missed events")
        self.version = message["version"]
        view = data["view"]
        for result in view["results"][self.hands_reported :]:
            self.hands_reported += 1
            if not self.quiet:
                side = result["winner"]
                if view.get("variant") == "court-piece":
                    # R9.6, R9.7: a deal is won, or a court, goon court or 52-court.
                    named = f" ({result['result']})" if result["result"] != "won" else ""
                    print(f"deal {self.hands_reported}: side {side} +{result['courts']}{named}")
                else:
                    kot = " (Kot)" if result["kot"] else ""
                    print(f"hand {self.hands_reported}: side {side} +{result['points']}{kot}")
        if view["over"]:
            if not self.quiet:
                print(f"match over: score {view['scores']}, winner side {view['winner']}")
            return view
        # Hokm's view has the hand being played, Court Piece's the deal; the greedy player takes
        # either (games.bots).
        hand = view["deal"] if view.get("variant") == "court-piece" else view["hand"]
        if hand["to_act"] != data["seat"] or not hand["legal"]:
            return None
        if self.decided_at == message["version"]:
            return None  # already answered this version; the ack or the next state will come
        self.client_seq += 1
        self.decided_at = message["version"]
        action = to_json(greedy_action(hand))
        await socket.send(
            json.dumps(
                {
                    "type": "action",
                    "client_seq": self.client_seq,
                    "version": message["version"],
                    "action": action,
                }
            )
        )
        return None


def parse_option(text: str) -> tuple[str, Any]:
    """``double_sir=true`` as ``("double_sir", True)``: true, false and null are JSON's."""
    name, _, value = text.partition("=")
    literal = {"true": True, "false": False, "null": None}
    return name.strip(), literal.get(value.strip(), value.strip())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", default="http://127.0.0.1:8000")
    parser.add_argument("--token", required=True, help="a personal API token (hokm_...)")
    parser.add_argument("--variant", default="hokm4")
    parser.add_argument(
        "--target", type=int, help="points (Hokm, 7 by default) or courts (Court Piece, 1)"
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a Court Piece table setting (R9.11), e.g. double_sir=true or hidden_trump=blind",
    )
    parser.add_argument("--match", type=int, help="play this match instead of starting one")
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument(
        "--drop-after",
        type=int,
        help="close the connection once after this many frames, to show reconnecting",
    )
    args = parser.parse_args(argv)
    if args.match is None:
        options = dict(parse_option(text) for text in args.option)
        started = start_match(args.server, args.token, args.variant, args.target, options)
        socket_path = started["socket"]
        if not args.quiet:
            print(f"match {started['match']} started, playing seat {started['seat']}")
    else:
        socket_path = f"/ws/api/match/{args.match}/"
    asyncio.run(
        play(args.server, args.token, socket_path, quiet=args.quiet, drop_after=args.drop_after)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
