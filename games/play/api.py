"""HTTP endpoints for programs: starting a match with a personal API token (docs/protocol.md),
and reading a player's public ratings (docs/api-players.md).

A token arrives in ``Authorization: Bearer ...``; no cookie is involved, so there is no CSRF to
guard against here and the views are exempt from it. Playing itself happens over the WebSocket.
What anyone may read on a profile page needs no token. Every answer is JSON, errors included:
each error's ``code`` is fixed; its ``message`` is in the request's language
(``Accept-Language``).
"""

from __future__ import annotations

import json

from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, JsonResponse
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt

from accounts.models import User
from accounts.restrictions import play_banned
from accounts.tokens import bearer_credentials, user_for_token
from games.engine import GAME_VARIANTS
from games.history.stats import player_record
from games.lobby.services import (
    TARGET_MAX,
    TARGET_MIN,
    TableError,
    TooManyTablesError,
    default_target,
    fair_seal_of,
    play_against_computer,
)
from games.models import ComputerLevel
from games.play import fairness
from games.ratings.selectors import RATED_VARIANTS, RatingShown, player_ratings

MAX_BODY_BYTES = 1024


def _error(status: int, code: str, message: str) -> JsonResponse:
    return JsonResponse({"error": {"code": code, "message": message}}, status=status)


def _get_only() -> JsonResponse:
    response = _error(405, "method_not_allowed", _("use GET"))
    response["Allow"] = "GET, HEAD"
    return response


def _unauthorized() -> JsonResponse:
    response = _error(401, "unauthorized", _("send a valid API token: Authorization: Bearer ..."))
    # A 401 names the scheme to authenticate with (RFC 9110, 11.6.1).
    response["WWW-Authenticate"] = "Bearer"
    return response


def _token_user(request: HttpRequest) -> User | None:
    raw = bearer_credentials(request.headers.get("Authorization", ""))
    return user_for_token(raw) if raw else None


def seal(request: HttpRequest) -> JsonResponse:
    """``GET /api/seal/``: the commitments of the token's player's sealed first shuffles (R8.4,
    docs/fairness.md), the flips' and the first hand's: send ``"commit"`` back with a
    ``"client_seed"`` when starting a match, and it deals from them, the seed in your seat."""
    if request.method not in ("GET", "HEAD"):
        return _get_only()
    user = _token_user(request)
    if user is None:
        return _unauthorized()
    return JsonResponse(fairness.seal_public(fair_seal_of(user=user).seal))


@csrf_exempt
def match_start_against_computer(request: HttpRequest) -> JsonResponse:
    """``POST /api/matches/`` ``{"variant": "hokm4", "target": 7, "level": "expert"}``: a match
    against computer players of that level (default medium), started at once, with the token's
    user at seat 0."""
    if request.method != "POST":
        # Not require_POST: its 405 has an empty HTML body, and programs read JSON errors.
        response = _error(405, "method_not_allowed", _("use POST"))
        response["Allow"] = "POST"
        return response
    user = _token_user(request)
    if user is None:
        return _unauthorized()
    try:
        body = request.body
    except RequestDataTooBig:
        # Over DATA_UPLOAD_MAX_MEMORY_SIZE: Django would answer with its HTML 400 page.
        body = None
    if body is None or len(body) > MAX_BODY_BYTES:
        return _error(
            413,
            "too_large",
            _("the body may hold at most %(max)s bytes") % {"max": MAX_BODY_BYTES},
        )
    try:
        data = json.loads(body or b"{}")
    except (ValueError, RecursionError):
        # RecursionError: arrays nested a thousand deep fit in MAX_BODY_BYTES.
        return _error(400, "bad_json", _("the body is not JSON"))
    if not isinstance(data, dict):
        return _error(400, "bad_request", _("the body must be a JSON object"))
    variant = data.get("variant", "hokm4")
    # A list or an object cannot be looked up (unhashable): only a string can name a variant.
    if not isinstance(variant, str) or variant not in GAME_VARIANTS:
        return _error(
            400,
            "bad_variant",
            _("variant must be one of %(variants)s") % {"variants": ", ".join(GAME_VARIANTS)},
        )
    target = data.get("target", default_target(variant))
    whole = isinstance(target, int) and not isinstance(target, bool)
    if not whole or not TARGET_MIN <= target <= TARGET_MAX:
        return _error(
            400,
            "bad_target",
            _("target must be a whole number from %(min)s to %(max)s")
            % {"min": TARGET_MIN, "max": TARGET_MAX},
        )
    level = data.get("level", ComputerLevel.MEDIUM)
    if level not in ComputerLevel.values:
        levels = ", ".join(ComputerLevel.values)
        return _error(400, "bad_level", _("level must be one of %(levels)s") % {"levels": levels})
    # Court Piece's table settings (R9.11) and most deals (R9.10.2): the table service checks
    # them (``refused`` when R9.11 does not allow a mix); Hokm takes neither.
    options = data.get("options")
    max_deals = data.get("max_deals")
    if options is not None and not isinstance(options, dict):
        return _error(400, "bad_options", _("options must be an object of table settings"))
    if max_deals is not None and (not isinstance(max_deals, int) or isinstance(max_deals, bool)):
        return _error(400, "bad_max_deals", _("max_deals must be a whole number or null"))
    # The sealed first shuffles (GET /api/seal/) and the program's seed for them (R8.4).
    commit, client_seed = data.get("commit", ""), data.get("client_seed", "")
    if not isinstance(commit, str) or not isinstance(client_seed, str):
        return _error(400, "bad_seed", _("commit and client_seed must be text"))
    restriction = play_banned(user=user)
    if restriction is not None:
        return _error(403, "play_banned", restriction.message())
    try:
        match = play_against_computer(
            user=user,
            variant=variant,
            target=target,
            computer_level=level,
            options=options,
            max_deals=max_deals,
            commit=commit[:64],
            client_seed=client_seed,
        )
    except TooManyTablesError as error:
        response = _error(429, "rate_limited", str(error))
        response["Retry-After"] = str(error.retry_after)
        return response
    except TableError as error:
        return _error(400, "refused", str(error))
    return JsonResponse(
        {"match": match.pk, "seat": 0, "socket": f"/ws/api/match/{match.pk}/"}, status=201
    )


def player_public(request: HttpRequest, username: str) -> JsonResponse:
    """``GET /api/players/<name>/``: a player's public ratings, games and places, as his profile
    shows them. No token needed: everything here is on his public page. Three queries: the
    player, his ratings with their places, and his finished matches."""
    if request.method not in ("GET", "HEAD"):
        return _get_only()
    player = _player_named(username)
    if player is None:
        return _error(404, "not_found", _("no player has this name"))
    standings = {s.variant: s for s in player_ratings(user=player)}
    ratings = {}
    for variant in RATED_VARIANTS:
        standing = standings.get(variant)
        rating = standing.rating if standing else RatingShown.of(None, variant)
        ratings[variant] = {
            "rating": rating.rating,
            "provisional": rating.provisional,
            "games": rating.games,
            "wins": rating.wins,
            "rank": standing.place if standing else None,
        }
    return JsonResponse(
        {
            "username": player.username,
            "display_name": player.display_name or None,
            "profile": reverse("games:profile", args=[player.username]),
            "matches": player_record(user=player).played,
            "ratings": ratings,
        }
    )


def _player_named(username: str) -> User | None:
    """The active player called ``username``; else the one whose name differs only in letter
    case, as the profile's address takes it (usernames are unique in any case). The exact name
    is found on the index; only another spelling costs a second query."""
    players = User.objects.filter(is_active=True)
    exact = players.filter(username=username).first()
    if exact is not None:
        return exact
    others = list(players.filter(username__iexact=username)[:2])
    return others[0] if len(others) == 1 else None
