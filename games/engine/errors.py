"""Errors the engine raises for an action it refuses.

Each carries a stable ``code`` (for clients and translations) and a message a player can read,
written to the player ("you hold a diamond and diamonds were led"). Nothing in a message names a
card the player may not see: only his own cards and cards already played appear in them.
"""

from __future__ import annotations

from .cards import Card, Suit


class IllegalActionError(ValueError):
    """An action the rules do not allow now. The state is unchanged."""

    code = "illegal"

    def __init__(self, message: str, *, seat: int | None = None) -> None:
        self.seat = seat
        super().__init__(message)

    @property
    def message(self) -> str:
        return str(self.args[0])


class NotYourTurnError(IllegalActionError):
    code = "not_your_turn"

    def __init__(self, *, seat: int, to_act: int | None) -> None:
        self.to_act = to_act
        super().__init__("it is not your turn", seat=seat)


class WrongPhaseError(IllegalActionError):
    code = "wrong_phase"

    def __init__(self, *, seat: int | None, action: str, phase: str) -> None:
        self.action, self.phase = action, phase
        super().__init__(f"you cannot {action} now: the hand is at the {phase} step", seat=seat)


class HandOverError(IllegalActionError):
    code = "hand_over"

    def __init__(self, *, seat: int | None) -> None:
        super().__init__("the hand is over", seat=seat)


class MatchOverError(IllegalActionError):
    code = "match_over"

    def __init__(self) -> None:
        super().__init__("the match is over")


class CardNotHeldError(IllegalActionError):
    code = "card_not_held"

    def __init__(self, *, seat: int, card: Card, already_played: bool) -> None:
        self.card, self.already_played = card, already_played
        reason = f"{card} was already played" if already_played else f"you do not hold {card}"
        super().__init__(reason, seat=seat)


class MustFollowSuitError(IllegalActionError):
    """R4.2: a player holding the suit led must play it."""

    code = "must_follow_suit"

    def __init__(self, *, seat: int, card: Card, led: Suit) -> None:
        self.card, self.led = card, led
        super().__init__(f"you hold a {led.singular} and {led.plural} were led", seat=seat)


class InvalidDiscardError(IllegalActionError):
    """R3.5: the discards must be the right number of the player's own first cards."""

    code = "invalid_discard"

    def __init__(self, message: str, *, seat: int) -> None:
        super().__init__(message, seat=seat)


class InvalidTrumpError(IllegalActionError):
    code = "invalid_trump"

    def __init__(self, value: object, *, seat: int) -> None:
        super().__init__(f"{value!r} is not a suit: call S, H, D or C", seat=seat)


class InvalidIndicatorError(IllegalActionError):
    """R9.14.1: the hidden-trump indicator is one of the caller's first 5 cards."""

    code = "invalid_indicator"

    def __init__(self, card: object, *, seat: int) -> None:
        super().__init__(f"{card} is not one of your first 5 cards", seat=seat)


class RevealNotAllowedError(IllegalActionError):
    """R9.14.2: only the caller, or a seat not leading and holding no card of the suit led, may
    turn the indicator up, once per deal."""

    code = "reveal_not_allowed"

    def __init__(self, message: str, *, seat: int) -> None:
        super().__init__(message, seat=seat)


class IndicatorHiddenError(IllegalActionError):
    """R9.14.3: until its reveal the indicator is not in the caller's hand."""

    code = "indicator_hidden"

    def __init__(self, *, seat: int, card: Card) -> None:
        self.card = card
        super().__init__(f"{card} is the trump indicator: reveal it before you play it", seat=seat)


class MustTrumpError(IllegalActionError):
    """R9.14.4: a seat that revealed holding no card of the suit led must trump if it can."""

    code = "must_trump"

    def __init__(self, *, seat: int, card: Card, trump: Suit) -> None:
        self.card, self.trump = card, trump
        super().__init__(
            f"you asked for trump holding no card of the suit led, so you must play a "
            f"{trump.singular}",
            seat=seat,
        )
