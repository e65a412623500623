#!/usr/bin/env python3
"""A reference client: plays a whole Hokm match over the network with a personal API token.

It starts a match against computer players (``POST /api/matches/``), then plays its seat over the
JSON WebSocket protocol of docs/protocol.md, deciding with the greedy computer player. Run it from
the project root (it imports ``games.bots.greedy``, which is pure Python):

    .venv/bin/python scripts/hokm_client.py --server http://127.0.0.1:8000 --token hokm_...

It prints one line per hand and the final score, and exits 0 when the match is over.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import websockets  # noqa: E402

from games.bots.greedy import greedy_action  # noqa: E402
from games.engine import to_json  # noqa: E402


def start_match(server: str, token: str, variant: str, target: int) -> dict[str, Any]:
    request = urllib.request.Request(
        f"{server.rstrip('/')}/api/matches/",
        data=json.dumps({"variant": variant, "target": target}).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


async def play(server: str, token: str, socket_path: str, *, quiet: bool = False) -> dict:
    url = server.replace("http://", "ws://").replace("https://", "wss://").rstrip("/")
    headers = {"Authorization": f"Bearer {token}"}
    client_seq = 0
    decided_at: tuple[int, int] | None = None  # (version, client_seq) of the last action sent
    hands_reported = 0
    async with websockets.connect(url + socket_path, additional_headers=headers) as socket:
        async for raw in socket:
            message = json.loads(raw)
            kind, data = message["type"], message["data"]
            if kind == "error":
                print(f"refused: {data['message']} ({data['code']})", file=sys.stderr)
                if data["code"] == "rate_limited":
                    await asyncio.sleep(1)  # the server refills a token every 0.1 s
                decided_at = None  # decide again on the fresh state
                await socket.send(json.dumps({"type": "resync"}))
                continue
            if kind not in ("state", "event"):
                continue
            view = data["view"]
            for result in view["results"][hands_reported:]:
                hands_reported += 1
                if not quiet:
                    kot = " (Kot)" if result["kot"] else ""
                    side, points = result["winner"], result["points"]
                    print(f"hand {hands_reported}: side {side} +{points}{kot}")
            if view["over"]:
                if not quiet:
                    print(f"match over: score {view['scores']}, winner side {view['winner']}")
                return view
            hand = view["hand"]
            if hand["to_act"] != data["seat"] or not hand["legal"]:
                continue
            if decided_at and decided_at[0] == message["version"]:
                continue  # already answered this version; the ack or the next state will come
            client_seq += 1
            decided_at = (message["version"], client_seq)
            action = to_json(greedy_action(hand))
            await socket.send(
                json.dumps(
                    {
                        "type": "action",
                        "client_seq": client_seq,
                        "version": message["version"],
                        "action": action,
                    }
                )
            )
    raise SystemExit("the server closed the socket before the match ended")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", default="http://127.0.0.1:8000")
    parser.add_argument("--token", required=True, help="a personal API token (hokm_...)")
    parser.add_argument("--variant", default="hokm4")
    parser.add_argument("--target", type=int, default=7)
    parser.add_argument("--match", type=int, help="play this match instead of starting one")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    if args.match is None:
        started = start_match(args.server, args.token, args.variant, args.target)
        socket_path = started["socket"]
        if not args.quiet:
            print(f"match {started['match']} started, playing seat {started['seat']}")
    else:
        socket_path = f"/ws/api/match/{args.match}/"
    asyncio.run(play(args.server, args.token, socket_path, quiet=args.quiet))
    return 0


if __name__ == "__main__":
    sys.exit(main())
