"""The Hokm rules engine: pure Python, no Django, deterministic from a seed.

    >>> from games.engine import HOKM4, new_match, match_legal_actions, match_apply
    >>> match = new_match(HOKM4, seed=1)
    >>> action = match_legal_actions(match)[0]
    >>> match = match_apply(match, action)

Rules are cited by their numbers in ``shared/RULES.md`` (``R4.2``).
"""

from .actions import (
    Action,
    ActionFormatError,
    CallTrump,
    Discard,
    KeepOrThrow,
    PlayCard,
    action_from_json,
    to_json,
)
from .cards import FULL_DECK, SUITS, Card, CardTextError, Suit, parse_cards, sorted_hand
from .draw import DrawError, HakemDraw, draw_hakem, first_ace_hakem, high_card_hakem
from .errors import (
    CardNotHeldError,
    HandOverError,
    IllegalActionError,
    InvalidDiscardError,
    InvalidTrumpError,
    MatchOverError,
    MustFollowSuitError,
    NotYourTurnError,
    WrongPhaseError,
)
from .hand import (
    DeckError,
    HandResult,
    HandState,
    Phase,
    Trick,
    apply,
    deal_deck,
    deck_from_deal,
    default_trump,
    legal_actions,
    new_hand,
    outcome,
    playable_cards,
    trick_winner_index,
)
from .match import (
    DEFAULT_TARGET,
    MatchState,
    hand_seed,
    match_apply,
    match_legal_actions,
    new_match,
    next_hand,
)
from .seeding import derive_seed, new_seed
from .variants import (
    HOKM2,
    HOKM2_DRAW,
    HOKM3,
    HOKM4,
    VARIANTS,
    HakemDrawMethod,
    Variant,
    get_variant,
)
from .view import SPECTATOR, RevealError, match_view, result_json, view

__all__ = [
    "HakemDrawMethod",
    "result_json",
    "Action",
    "ActionFormatError",
    "CallTrump",
    "Card",
    "CardNotHeldError",
    "CardTextError",
    "DEFAULT_TARGET",
    "DeckError",
    "Discard",
    "DrawError",
    "FULL_DECK",
    "HOKM2",
    "HOKM2_DRAW",
    "HOKM3",
    "HOKM4",
    "HakemDraw",
    "HandOverError",
    "HandResult",
    "HandState",
    "IllegalActionError",
    "InvalidDiscardError",
    "InvalidTrumpError",
    "KeepOrThrow",
    "MatchOverError",
    "MatchState",
    "MustFollowSuitError",
    "NotYourTurnError",
    "Phase",
    "PlayCard",
    "RevealError",
    "SPECTATOR",
    "SUITS",
    "Suit",
    "Trick",
    "VARIANTS",
    "Variant",
    "WrongPhaseError",
    "action_from_json",
    "apply",
    "deal_deck",
    "deck_from_deal",
    "default_trump",
    "derive_seed",
    "draw_hakem",
    "first_ace_hakem",
    "get_variant",
    "hand_seed",
    "high_card_hakem",
    "legal_actions",
    "match_apply",
    "match_legal_actions",
    "match_view",
    "new_hand",
    "new_match",
    "new_seed",
    "next_hand",
    "outcome",
    "parse_cards",
    "playable_cards",
    "sorted_hand",
    "to_json",
    "trick_winner_index",
    "view",
]
