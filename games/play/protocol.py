"""The WebSocket protocol of a match: one message shape, parsed strictly.

Every message is a JSON object ``{"type": ..., "version": ..., "data": ...}`` (docs/protocol.md).
Clients send ``action`` (with a ``client_seq``), ``resync`` (with ``since``, the last version seen),
``ping``, ``chat``, ``back``, ``leave`` and ``resign``; the server answers with ``state``,
``event``, ``ack``, ``error``, ``pong``, ``presence``, ``chat`` and ``chat_history``.
Parsing never raises anything but :class:`ProtocolError`, whose code and message go back to the
client in an error frame.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from games.engine import Action, ActionFormatError, action_from_json

#: Largest text frame a client may send: an action is well under 300 bytes.
MAX_MESSAGE_BYTES = 4096
#: Client sequence ids are positive and fit a 64-bit column.
MAX_CLIENT_SEQ = 2**63 - 1

#: Keys the htmx WebSocket extension adds to every form it sends.
_HTMX_KEYS = {"HEADERS"}


class ProtocolError(ValueError):
    """A message the server cannot take; ``code`` is stable, ``message`` is for people."""

    def __init__(self, code: str, message: str, *, client_seq: int | None = None) -> None:
        super().__init__(message)
        self.code, self.message, self.client_seq = code, message, client_seq


@dataclass(frozen=True, slots=True)
class ActionMessage:
    client_seq: int
    action: Action
    version: int | None


@dataclass(frozen=True, slots=True)
class ResyncMessage:
    since: int | None


@dataclass(frozen=True, slots=True)
class PingMessage:
    pass


@dataclass(frozen=True, slots=True)
class ChatRequest:
    """A chat message: free ``text`` or a quick ``phrase`` code, exactly one of them."""

    text: str | None
    phrase: str | None


@dataclass(frozen=True, slots=True)
class SeatMessage:
    """``back``: "I'm back", the player takes his seat again; else ``leave``: he leaves the
    match and a computer player plays his seat until he comes back (R8.1)."""

    back: bool


@dataclass(frozen=True, slots=True)
class ResignMessage:
    """``resign``: the player's side loses the match at once (R8; ``match_resign``)."""


@dataclass(frozen=True, slots=True)
class ClientSeedMessage:
    """``client_seed``: the seat's seed for the shuffle committed to as ``commit`` (R8.4): 0 to
    64 characters from 0x20 to 0x7E but ``|`` (checked by the service)."""

    commit: str
    seed: str


ClientMessage = (
    ActionMessage
    | ResyncMessage
    | PingMessage
    | ChatRequest
    | SeatMessage
    | ResignMessage
    | ClientSeedMessage
)


def parse_client_message(text: str | None, *, seat: int | None) -> ClientMessage:
    """Parse one text frame from a client seated at ``seat`` (None for a spectator).

    Accepts the JSON protocol's ``{"type": "action", "client_seq": 7, "version": 12,
    "action": {"type": "play_card", "card": "AS"}}`` and the flat form the htmx page sends,
    ``{"type": "action", "client_seq": "7", "version": "12", "kind": "play_card", "card": "AS"}``.
    """
    if text is None:
        raise ProtocolError("binary_frame", "send text frames holding JSON")
    if len(text.encode("utf-8", "surrogatepass")) > MAX_MESSAGE_BYTES:
        raise ProtocolError("too_large", f"a message may hold at most {MAX_MESSAGE_BYTES} bytes")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        raise ProtocolError("bad_json", "the message is not JSON") from None
    if not isinstance(data, dict):
        raise ProtocolError("bad_message", "a message must be a JSON object")
    kind = data.get("type")
    if kind == "ping":
        return PingMessage()
    if kind == "resync":
        return ResyncMessage(since=_optional_int(data.get("since"), "since"))
    if kind == "chat":
        return _chat_request(data, seat=seat)
    if kind in ("back", "leave"):
        if seat is None:
            raise ProtocolError("not_seated", "spectators have no seat to leave or take back")
        return SeatMessage(back=kind == "back")
    if kind == "resign":
        if seat is None:
            raise ProtocolError("not_seated", "spectators have no seat to resign")
        return ResignMessage()
    if kind == "client_seed":
        if seat is None:
            raise ProtocolError("not_seated", "only the seated players' seeds go into a shuffle")
        commit, seed = data.get("commit"), data.get("seed")
        if not isinstance(commit, str) or not isinstance(seed, str):
            raise ProtocolError("bad_message", "client_seed needs a commit and a seed, as strings")
        return ClientSeedMessage(commit=commit, seed=seed)
    if kind != "action":
        raise ProtocolError("unknown_type", f"unknown message type {_shown(kind)}")
    client_seq = _int(data.get("client_seq"), "client_seq")
    if not 1 <= client_seq <= MAX_CLIENT_SEQ:
        raise ProtocolError("bad_message", "client_seq must be a positive whole number")
    if seat is None:
        raise ProtocolError("not_seated", "spectators cannot act", client_seq=client_seq)
    version = _optional_int(data.get("version"), "version", client_seq=client_seq)
    raw = data.get("action")
    if raw is None:
        raw = _flat_action(data)
    if not isinstance(raw, dict):
        raise ProtocolError("bad_action", "action must be an object", client_seq=client_seq)
    claimed = raw.get("seat")
    if claimed is not None and claimed != seat:
        raise ProtocolError(
            "wrong_seat", f"you sit at seat {seat}, not {_shown(claimed)}", client_seq=client_seq
        )
    try:
        action = action_from_json(raw, seat=seat)
    except ActionFormatError as error:
        raise ProtocolError("bad_action", str(error), client_seq=client_seq) from None
    return ActionMessage(client_seq=client_seq, action=action, version=version)


def _chat_request(data: dict[str, Any], *, seat: int | None) -> ChatRequest:
    """``{"type": "chat", "text": "..."}`` or ``{"type": "chat", "phrase": "hello"}``; an htmx
    form may send the other key empty. The content itself is checked by ``games.play.chat``."""
    text, phrase = data.get("text"), data.get("phrase")
    if not isinstance(text, str | None) or not isinstance(phrase, str | None):
        raise ProtocolError("bad_message", "text and phrase must be strings")
    if phrase == "":
        phrase = None
    if phrase is not None and text:
        raise ProtocolError("bad_message", "send either a text or a quick phrase, not both")
    if phrase is None and text is None:
        raise ProtocolError("bad_message", "a chat message needs a text or a quick phrase")
    if seat is None:
        raise ProtocolError("not_seated", "spectators can read the chat but not write in it")
    return ChatRequest(text=None if phrase is not None else text, phrase=phrase)


def _flat_action(data: dict[str, Any]) -> dict[str, Any]:
    """The action of an htmx form: ``kind`` names it; form values arrive as strings."""
    action: dict[str, Any] = {
        k: v for k, v in data.items() if k not in _HTMX_KEYS | {"type", "client_seq", "version"}
    }
    action["type"] = action.pop("kind", None)
    if "keep" in action and isinstance(action["keep"], str):
        action["keep"] = {"true": True, "false": False}.get(action["keep"], action["keep"])
    if "cards" in action and isinstance(action["cards"], str):
        action["cards"] = [action["cards"]]
    return action


def _int(value: Any, name: str, *, client_seq: int | None = None) -> int:
    # htmx forms send numbers as strings; accept plain decimal digits only.
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 19:
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise ProtocolError("bad_message", f"{name} must be a whole number", client_seq=client_seq)


def _optional_int(value: Any, name: str, *, client_seq: int | None = None) -> int | None:
    return None if value is None or value == "" else _int(value, name, client_seq=client_seq)


def _shown(value: Any) -> str:
    text = json.dumps(value)[:40] if value is not None else "missing"
    return text


def server_message(kind: str, *, version: int, data: dict[str, Any]) -> dict[str, Any]:
    """The one shape of every server message."""
    return {"type": kind, "version": version, "data": data}
