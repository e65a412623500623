"""Court Piece table settings (R9.11), fixed for a whole match and stored in its record."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from ..cards import Suit

NAME = "court-piece"
PLAYERS = 4
TRICKS = 13


class HiddenTrump(StrEnum):
    OFF = "off"
    CHOSEN = "chosen"  # the caller picks the indicator (R9.14.1)
    BLIND = "blind"  # the server picks it from the deal's seed; nobody sees it


class OptionsError(ValueError):
    """Table settings that R9.11 does not allow."""


@dataclass(frozen=True, slots=True)
class CourtPieceOptions:
    """R9.11: ``ace_rule`` needs ``double_sir``; every other mix is allowed."""

    double_sir: bool = False
    ace_rule: bool = False
    hidden_trump: HiddenTrump = HiddenTrump.OFF
    goon_court: bool = True
    ace_caller: Suit | None = None

    def __post_init__(self) -> None:
        for name in ("double_sir", "ace_rule", "goon_court"):
            if not isinstance(getattr(self, name), bool):
                raise OptionsError(f'"{name}" must be true or false')
        if not isinstance(self.hidden_trump, HiddenTrump):
            raise OptionsError('"hidden_trump" must be one of off, chosen, blind')
        if self.ace_caller is not None and not isinstance(self.ace_caller, Suit):
            raise OptionsError('"ace_caller" must be null or a suit: S, H, D or C')
        if self.ace_rule and not self.double_sir:
            raise OptionsError('"ace_rule" needs "double_sir" (R9.11)')

    @property
    def hidden(self) -> bool:
        return self.hidden_trump is not HiddenTrump.OFF

    def to_json(self) -> dict[str, Any]:
        return {
            "double_sir": self.double_sir,
            "ace_rule": self.ace_rule,
            "hidden_trump": self.hidden_trump.value,
            "goon_court": self.goon_court,
            "ace_caller": self.ace_caller.value if self.ace_caller else None,
        }

    @classmethod
    def from_json(cls, data: object) -> CourtPieceOptions:
        """The options of a record (absent keys take the defaults); raises :class:`OptionsError`
        on an unknown key or a wrong value."""
        if not isinstance(data, dict):
            raise OptionsError('"options" must be an object')
        unknown = sorted(set(data) - set(cls.__dataclass_fields__))
        if unknown:
            raise OptionsError(f'"options" has an unknown setting {unknown[0]!r}')
        hidden = data.get("hidden_trump", "off")
        if not isinstance(hidden, str) or hidden not in {h.value for h in HiddenTrump}:
            raise OptionsError('"hidden_trump" must be one of off, chosen, blind')
        ace_caller = data.get("ace_caller")
        if ace_caller is not None and (
            not isinstance(ace_caller, str) or ace_caller not in {s.value for s in Suit}
        ):
            raise OptionsError('"ace_caller" must be null or a suit: S, H, D or C')
        return cls(
            double_sir=data.get("double_sir", False),
            ace_rule=data.get("ace_rule", False),
            hidden_trump=HiddenTrump(hidden),
            goon_court=data.get("goon_court", True),
            ace_caller=Suit(ace_caller) if ace_caller is not None else None,
        )
