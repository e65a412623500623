"""Response times of the ratings pages on a filled database (``bench/fill_ratings.py`` first).

    .venv/bin/python -m bench.ratings_bench              # in-process, 200 timed requests each
    .venv/bin/python -m bench.ratings_bench --explain    # and the server's time per query

It times, in turn: the page of all leaderboards and each family's leaderboard, each signed in as a
player at the middle of that family's board (so his own place is counted too); the profile of
the player with most rated matches (his ratings in several families, each with its chart, and
his statistics), seen by another player, and that of a regular (the hundredth player by rated
matches, the top 1%); the lobby, signed in as the first, who waits at an open table; and
``GET /api/players/<name>/`` for both players, without a session, as a program calls it.
The pages take turns, one request each per round, so that whatever else the (shared) machine is
doing falls on all of them alike.

The requests go through Django's test ``Client`` in this process, as ``bench/history_bench.py``
does (it says what that includes and leaves out): DEBUG off, templates compiled once, one
database connection kept open. The matches in play are marked seen again (their players'
``MatchConnection`` rows) before the timed rounds and every 20 seconds during them, so the lobby
lists them as live.

It prints a Markdown table: queries, median and 95th percentile (nearest rank) in milliseconds,
the medians of this thread's CPU time and of the wall time in queries, and the size of the
response; then the number of queries of each page for a player with many rated matches and for
one with few, which must be the same (a fixed number of queries). ``--explain`` runs ``EXPLAIN
ANALYZE`` on each page's queries and lists them by the database server's own time.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

from bench._django import database_describe, settings_prepare
from bench.history_bench import TARGET_MS, DatabaseClock, percentile, server_times

#: How often the benchmark marks the matches in play seen again: well within
#: ``games.play.presence.ALIVE_SECONDS``.
PRESENCE_REFRESH_SECONDS = 20
#: The regular whose profile is timed too: the hundredth player by rated matches.
REGULAR_RANK = 100


@dataclass
class Page:
    label: str
    url: str
    client: Any  # django.test.Client, signed in or not
    times_ms: list[float] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)
    db_ms: list[float] = field(default_factory=list)
    queries: int | None = None
    size: int = 0

    @property
    def median(self) -> float:
        return statistics.median(self.times_ms)

    @property
    def p95(self) -> float:
        return percentile(self.times_ms, 95)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.ratings_bench", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--requests", type=int, default=200, help="timed requests per page (200)")
    parser.add_argument("--warmup", type=int, default=20, help="untimed requests first (20)")
    parser.add_argument(
        "--explain",
        action="store_true",
        help="also EXPLAIN ANALYZE each page's queries and show where the database spends its time",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    from bench.fill_ratings import DEFAULT_DATABASE_URL

    os.environ["BENCH_DATABASE_URL"] = (
        os.environ.get("BENCH_RATINGS_DATABASE_URL") or DEFAULT_DATABASE_URL
    )
    settings_prepare(cached_templates=True)
    import django

    django.setup()
    from django.conf import settings

    # As in production: DEBUG off (no query log kept). Not setup_test_environment(): it makes
    # every template render send a signal on which the test client copies the whole context.
    settings.DEBUG = False
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]

    people = people_choose()
    pages, pairs = pages_choose(people)
    presence_refresh()
    for page in pages:
        page.queries, page.size = queries_count(page)
    for page in pages:  # warm up: connections, caches, compiled templates
        for _ in range(args.warmup):
            fetch(page)
    # As a daphne process does once loaded (hokm_site/asgi.py): the startup heap out of the
    # garbage collector's full collections.
    from hokm_site.startup import heap_freeze

    heap_freeze()
    load_before = os.getloadavg()
    db_clock = DatabaseClock()
    from django.db import connection

    refreshed = time.monotonic()
    with connection.execute_wrapper(db_clock):
        for _ in range(args.requests):
            if time.monotonic() - refreshed > PRESENCE_REFRESH_SECONDS:
                presence_refresh()
                refreshed = time.monotonic()
            for page in pages:
                db_clock.seconds = 0.0
                began, cpu_began = time.perf_counter(), time.thread_time()
                fetch(page)
                page.times_ms.append((time.perf_counter() - began) * 1000)
                page.cpu_ms.append((time.thread_time() - cpu_began) * 1000)
                page.db_ms.append(db_clock.seconds * 1000)
    report(args=args, pages=pages, loads=(load_before, os.getloadavg()), people=people)
    fixed_queries_report(pairs)
    if args.explain:
        explain(pages)


@dataclass
class People:
    """The players the pages are seen as, or about, found in the filled data."""

    #: Per family, the player at the middle of its leaderboard.
    middle: dict[str, Any]
    #: Per family, a player with the fewest rated matches in it (one or two: not on the board).
    newcomer: dict[str, Any]
    #: The player with most rated matches, who waits at an open table.
    heaviest: Any
    #: The hundredth player by rated matches.
    regular: Any
    #: A player with the fewest rated matches of all, at no table.
    lightest: Any


def people_choose() -> People:
    from django.contrib.auth import get_user_model
    from django.db.models import Count
    from django.utils import timezone

    from games.models import Rating, RatingChange, Seat, Table
    from games.ratings.model import LEADERBOARD_DAYS, LEADERBOARD_MIN_GAMES, PROVISIONAL_SIGMA
    from games.ratings.selectors import RATED_VARIANTS

    User = get_user_model()  # noqa: N806
    since = timezone.now() - datetime.timedelta(days=LEADERBOARD_DAYS)
    middle, newcomer = {}, {}
    for variant in RATED_VARIANTS:
        board = Rating.objects.filter(
            variant=variant,
            games__gte=LEADERBOARD_MIN_GAMES,
            sigma__lt=PROVISIONAL_SIGMA,
            last_played_at__gte=since,
            user__is_active=True,
        ).order_by("-rating", "user_id")
        size = board.count()
        if not size:
            raise SystemExit(f"nobody on the {variant} leaderboard: run bench.fill_ratings")
        middle[variant] = board.select_related("user")[size // 2].user
        newcomer[variant] = (
            Rating.objects.filter(variant=variant, games__gt=0)
            .select_related("user")
            .order_by("games", "user_id")
            .first()
            .user
        )
    counts = RatingChange.objects.values("user").annotate(n=Count("pk"))
    by_matches = counts.order_by("-n", "user")
    heaviest = User.objects.get(pk=by_matches[0]["user"])
    regular = User.objects.get(pk=by_matches[REGULAR_RANK - 1]["user"])
    if not Seat.objects.filter(user=heaviest, table__status=Table.Status.OPEN).exists():
        raise SystemExit(f"{heaviest} waits at no open table: run bench.fill_ratings --force")
    seated = Seat.objects.filter(table__status=Table.Status.OPEN, user__isnull=False)
    lightest = User.objects.get(
        pk=counts.exclude(user__in=seated.values("user")).order_by("n", "user").first()["user"]
    )
    return People(
        middle=middle,
        newcomer=newcomer,
        heaviest=heaviest,
        regular=regular,
        lightest=lightest,
    )


def signed_in(user: Any) -> Any:
    from django.test import Client

    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def pages_choose(people: People) -> tuple[list[Page], list[tuple[str, Page, Page]]]:
    """The pages to time, and pairs of the same page for a player with many rated matches and
    one with few, whose query counts must be equal."""
    from django.db.models import Count
    from django.urls import reverse

    from games.models import RatingChange
    from games.ratings.selectors import RATED_VARIANTS

    heaviest, regular = people.heaviest, people.regular

    def described(user: Any) -> str:
        changes = RatingChange.objects.filter(user=user)
        families = changes.values("variant").distinct().count()
        return f"{changes.aggregate(n=Count('pk'))['n']} rated matches, {families} charts"

    anonymous = signed_in(None)
    board_viewers = {variant: signed_in(people.middle[variant]) for variant in RATED_VARIANTS}
    watcher = board_viewers["hokm4"]
    heavy_client = signed_in(heaviest)
    light_client = signed_in(people.lightest)
    profile, api = "games:profile", "games:api_player"
    pages = [
        Page("Leaderboards, all families", reverse("games:leaderboard"), watcher),
        *(
            Page(
                f"Leaderboard {variant}",
                reverse("games:leaderboard_variant", args=[variant]),
                board_viewers[variant],
            )
            for variant in RATED_VARIANTS
        ),
        Page(
            f"Profile, most matches ({described(heaviest)})",
            reverse(profile, args=[heaviest.username]),
            watcher,
        ),
        Page(
            f"Profile, a regular ({described(regular)})",
            reverse(profile, args=[regular.username]),
            watcher,
        ),
        Page("Lobby", reverse("games:lobby"), heavy_client),
        Page("API player, most matches", reverse(api, args=[heaviest.username]), anonymous),
        Page("API player, a regular", reverse(api, args=[regular.username]), anonymous),
    ]
    lightest = people.lightest
    # The player with the fewest rated matches, one of them at least in a partnership game.
    from django.db.models import Q

    from accounts.models import User

    partnered_id = (
        RatingChange.objects.values("user")
        .annotate(
            n=Count("pk"),
            partnered=Count("pk", filter=Q(variant__in=["hokm4", "court-piece"])),
        )
        .filter(partnered__gte=1)
        .order_by("n", "user")
        .values_list("user", flat=True)
        .first()
    )
    partnered = User.objects.get(pk=partnered_id)

    def newcomer_of(variant: str) -> str:
        user = people.newcomer[variant]
        games = RatingChange.objects.filter(user=user, variant=variant).count()
        return f"{user.username}, rated matches: {games}"

    pairs = [
        (
            f"Leaderboard {variant}: the viewer in the middle / {newcomer_of(variant)}",
            Page("", reverse("games:leaderboard_variant", args=[variant]), board_viewers[variant]),
            Page(
                "",
                reverse("games:leaderboard_variant", args=[variant]),
                signed_in(people.newcomer[variant]),
            ),
        )
        for variant in RATED_VARIANTS
    ]
    pairs += [
        (
            f"Leaderboards, all families: {heaviest.username} / {lightest.username}",
            Page("", reverse("games:leaderboard"), heavy_client),
            Page("", reverse("games:leaderboard"), light_client),
        ),
        (
            # Both with a partnership match: a profile without one has no partner to find, and
            # makes three queries fewer (games.history.stats).
            f"Profile of {heaviest.username} / {partnered.username} ({described(partnered)})",
            Page("", reverse(profile, args=[heaviest.username]), watcher),
            Page("", reverse(profile, args=[partnered.username]), watcher),
        ),
        (
            f"Lobby seen by {heaviest.username} / {lightest.username}",
            Page("", reverse("games:lobby"), heavy_client),
            Page("", reverse("games:lobby"), light_client),
        ),
        (
            f"API player {heaviest.username} / {lightest.username}",
            Page("", reverse(api, args=[heaviest.username]), anonymous),
            Page("", reverse(api, args=[lightest.username]), anonymous),
        ),
    ]
    return pages, pairs


def fetch(page: Page) -> bytes:
    response = page.client.get(page.url)
    if response.status_code != 200:
        raise SystemExit(f"{page.url} answered {response.status_code}")
    return response.content


def queries_count(page: Page) -> tuple[int, int]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        body = fetch(page)
    return len(captured), len(body)


def presence_refresh() -> None:
    """The players of the matches in play are connected: their sockets were seen just now."""
    from django.utils import timezone

    from games.models import MatchConnection

    MatchConnection.objects.update(seen_at=timezone.now())


def report(*, args: argparse.Namespace, pages: list[Page], loads: tuple, people: People) -> None:
    from django.contrib.auth import get_user_model

    from games.models import Hand, Match, MatchSeat, Rating, RatingChange

    print(
        f"\n{datetime.date.today().isoformat()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}, {database_describe()}"
    )
    print(
        f"data: {get_user_model().objects.count()} users, "
        f"{Match.objects.filter(rated=True).count()} rated matches, "
        f"{MatchSeat.objects.count()} match seats, {Hand.objects.count()} hands, "
        f"{RatingChange.objects.count()} rating changes, {Rating.objects.count()} ratings"
    )
    middle = ", ".join(f"{v} {u.username}" for v, u in people.middle.items())
    print(
        f"seen as: the middle of each board ({middle}); profiles and API of "
        f"{people.heaviest.username} and {people.regular.username}, the lobby as "
        f"{people.heaviest.username}"
    )
    print(
        f"{args.requests} timed requests per page after {args.warmup} warm-up, "
        "in-process (Django test Client)"
    )
    print(
        f"load average (1 min) {loads[0][0]:.1f} before the timed requests, "
        f"{loads[1][0]:.1f} after\n"
    )
    print(
        "| Page | URL | Queries | Median (ms) | p95 (ms) | Python CPU (ms) | Queries (ms) "
        "| Size (KB) |"
    )
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for page in pages:
        print(
            f"| {page.label} | `{page.url}` | {page.queries} | {page.median:.1f} "
            f"| {page.p95:.1f} | {statistics.median(page.cpu_ms):.1f} "
            f"| {statistics.median(page.db_ms):.1f} | {page.size / 1024:.1f} |"
        )
    slow = [page.label for page in pages if page.p95 >= TARGET_MS]
    verdict = f"over {TARGET_MS} ms at p95: {', '.join(slow)}" if slow else "all under"
    print(f"\ntarget: 95th percentile under {TARGET_MS} ms; {verdict}")


def fixed_queries_report(pairs: list[tuple[str, Page, Page]]) -> None:
    """Each page's queries for the two players, first with an empty cache (the profile keeps
    its statistics and charts in it: games.history.stats, games.ratings.charts), then again."""
    from django.core.cache import cache

    print("\nQueries for a player with many rated matches and for one with few")
    print("(with an empty cache, then seen again):\n")
    print("| Page: many / few | Many | Few | Same | Many again | Few again | Same |")
    print("| --- | ---: | ---: | --- | ---: | ---: | --- |")
    differing = []
    for label, many, few in pairs:
        cache.clear()
        (many_queries, _), (few_queries, _) = queries_count(many), queries_count(few)
        (many_again, _), (few_again, _) = queries_count(many), queries_count(few)
        same = many_queries == few_queries
        same_again = many_again == few_again
        if not (same and same_again):
            differing.append(label)
        print(
            f"| {label} | {many_queries} | {few_queries} | {'yes' if same else 'NO'} "
            f"| {many_again} | {few_again} | {'yes' if same_again else 'NO'} |"
        )
    verdict = f"differs for {', '.join(differing)}" if differing else "yes"
    print(f"\nfixed number of queries: {verdict}")


def explain(pages: list[Page], *, repeat: int = 5) -> None:
    """Each page's queries with the server's own execution time (EXPLAIN ANALYZE, median of
    ``repeat``), slowest first, and the plan of each page's slowest query."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    print("\nDatabase server time per query (EXPLAIN ANALYZE, median of 5), slowest first:")
    for page in pages:
        with CaptureQueriesContext(connection) as captured:
            fetch(page)
        timed = server_times(captured.captured_queries, repeat=repeat)
        with connection.cursor() as cursor:
            print(f"\n{page.label}: {sum(ms for ms, _ in timed):.2f} ms in {len(timed)} queries")
            for ms, sql in timed:
                print(f"  {ms:6.2f} ms  {sql[:200]}")
            if timed:
                cursor.execute(f"EXPLAIN (ANALYZE, BUFFERS) {timed[0][1]}")
                print("  plan of the slowest:")
                for (line,) in cursor.fetchall():
                    print(f"    {line}")


if __name__ == "__main__":
    main()
