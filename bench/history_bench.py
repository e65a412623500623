"""Response times of the history pages on a filled database (``bench/fill_history.py`` first).

    .venv/bin/python -m bench.history_bench                  # in-process, 200 timed requests each
    .venv/bin/python -m bench.history_bench --server http://127.0.0.1:8765

Signed in as the ``bench`` user, it requests in turn: the home page (for comparison: what any
signed-in page costs), "My games" (the first page and a deep one), "My games" filtered (variant,
result, computer players and a date range together; and a partner), the filtered list as htmx
asks for it when a filter changes, the summary page of the bench user's longest finished match,
and the replay of that match. The pages take turns, one request each per round, so that whatever
else the (shared) machine is doing falls on all of them alike.

By default the requests go through Django's test ``Client`` in this process: the whole Django
stack (middleware, sessions, views, templates, the database) without a server or a network, and on
one database connection kept open. Templates are compiled once and cached, as in production
(DEBUG off). With ``--server`` they go over HTTP to a server already running on the same database
(started with ``DATABASE_URL`` set to the bench database), with a session made for the bench
user: that adds the ASGI server, the connection opened per request (``CONN_MAX_AGE=0``) and the
loopback network, and whatever the server's settings are (DEBUG on re-reads every template).

It prints a Markdown table: the median and 95th percentile (nearest rank) of the response time in
milliseconds; in-process, the medians of two parts of it: the CPU time of this thread (Django's
own work, which the load of other processes barely changes) and the wall time spent in queries
(sending, the server's work, reading the rows); the number of database queries each page makes
(one extra request under ``CaptureQueriesContext``) and the size of the response. The load
average is printed with it: on a shared machine the rest of the response time is mostly waiting
for a CPU. ``--explain`` then runs ``EXPLAIN ANALYZE`` on each page's queries and lists them by
the database server's own time. A page that does not answer 200 stops the run.
"""

from __future__ import annotations

import argparse
import datetime
import http.client
import math
import os
import platform
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlencode, urlsplit

from bench._django import database_describe, settings_prepare

TARGET_MS = 50


@dataclass
class Page:
    label: str
    url: str
    headers: dict[str, str] = field(default_factory=dict)
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


def percentile(values: list[float], p: float) -> float:
    """The nearest-rank percentile: the smallest value with at least p% of values at or below."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.history_bench", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--requests", type=int, default=200, help="timed requests per page (200)")
    parser.add_argument("--warmup", type=int, default=20, help="untimed requests first (20)")
    parser.add_argument(
        "--server", default=None, help="base URL of a running server; default: in-process"
    )
    parser.add_argument(
        "--explain",
        action="store_true",
        help="also EXPLAIN ANALYZE each page's queries and show where the database spends its time",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    settings_prepare(cached_templates=True)
    import django

    django.setup()
    from django.conf import settings

    # As in production: DEBUG off (no query log kept). Not setup_test_environment(): it makes
    # every template render send a signal on which the test client copies the whole context.
    settings.DEBUG = False
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]

    from django.contrib.auth import get_user_model

    from bench.fill_history import BENCH_USERNAME

    user = get_user_model().objects.filter(username=BENCH_USERNAME).first()
    if user is None:
        raise SystemExit("no bench user: run `python -m bench.fill_history` first")
    pages = pages_choose(user)
    in_process = in_process_client(user)
    for page in pages:
        page.queries, page.size = queries_count(in_process, page)
    fetch = in_process if args.server is None else server_client(args.server, user)
    for page in pages:  # warm up: connections, caches, compiled templates
        for _ in range(args.warmup):
            fetch(page)
    load_before = os.getloadavg()
    db_clock = DatabaseClock()
    from django.db import connection

    with connection.execute_wrapper(db_clock):
        for _ in range(args.requests):
            for page in pages:
                db_clock.seconds = 0.0
                began, cpu_began = time.perf_counter(), time.thread_time()
                fetch(page)
                page.times_ms.append((time.perf_counter() - began) * 1000)
                page.cpu_ms.append((time.thread_time() - cpu_began) * 1000)
                page.db_ms.append(db_clock.seconds * 1000)
    report(args=args, pages=pages, loads=(load_before, os.getloadavg()))
    if args.explain:
        explain(in_process, pages)


class DatabaseClock:
    """Adds up the wall time of the queries this process sends (from sending to the last row)."""

    def __init__(self) -> None:
        self.seconds = 0.0

    def __call__(self, execute, sql, params, many, context):
        began = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.seconds += time.perf_counter() - began


def pages_choose(user) -> list[Page]:
    """The pages to time, with their URLs worked out from the data."""
    from django.db.models import Count, Q
    from django.urls import reverse
    from django.utils import timezone

    from games.history.selectors import HISTORY_PAGE_SIZE
    from games.models import Match, MatchSeat

    longest = (
        Match.objects.filter(seats__user=user, status=Match.Status.FINISHED)
        .annotate(hand_count=Count("hands"))
        .order_by("-hand_count", "-pk")
        .first()
    )
    if longest is None:
        raise SystemExit("the bench user has no finished match: run bench.fill_history")
    mine = MatchSeat.objects.filter(user=user).count()
    partner = (
        MatchSeat.objects.filter(match__seats__user=user, match__variant="hokm4")
        .filter(Q(user__isnull=False) & ~Q(user=user))
        .values("user__username")
        .annotate(n=Count("pk"))
        .order_by("-n")
        .first()
    )
    history = reverse("games:my_games")
    last_day = timezone.localdate()
    filters = {
        "variant": "hokm4",
        "result": "won",
        "computers": "without",
        "date_from": (last_day - datetime.timedelta(days=365)).isoformat(),
        "date_to": last_day.isoformat(),
    }
    deep = max(1, math.ceil(mine / HISTORY_PAGE_SIZE) // 2)
    filtered = f"{history}?{urlencode(filters)}"
    return [
        # Not a history page: what any signed-in page costs (session, user, the site's layout).
        Page("Home page (for comparison)", reverse("home")),
        Page("My games", history),
        Page(f"My games, page {deep}", f"{history}?page={deep}"),
        Page("My games, filtered", filtered),
        Page(
            "My games, filtered (htmx)",
            filtered,
            headers={"HX-Request": "true"},
        ),
        Page(
            "My games, with a partner",
            f"{history}?{urlencode({'partner': partner['user__username']})}",
        ),
        Page(
            f"Match page ({longest.hand_count} hands)",
            reverse("games:match_summary", args=[longest.pk]),
        ),
        Page(
            f"Replay ({longest.hand_count} hands)",
            reverse("games:replay", args=[longest.pk]),
        ),
    ]


def in_process_client(user) -> Callable[[Page], bytes]:
    from django.test import Client

    client = Client()
    client.force_login(user)

    def fetch(page: Page) -> bytes:
        headers = {f"HTTP_{k.upper().replace('-', '_')}": v for k, v in page.headers.items()}
        response = client.get(page.url, **headers)
        if response.status_code != 200:
            raise SystemExit(f"{page.url} answered {response.status_code}")
        return response.content

    return fetch


def server_client(base_url: str, user) -> Callable[[Page], bytes]:
    """Requests over HTTP/1.1 keep-alive, with a session cookie made for ``user``."""
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY

    session = import_module(settings.SESSION_ENGINE).SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.save()
    cookie = f"{settings.SESSION_COOKIE_NAME}={session.session_key}"
    parts = urlsplit(base_url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port or 80, timeout=30)

    def fetch(page: Page) -> bytes:
        connection.request("GET", page.url, headers={"Cookie": cookie, **page.headers})
        response = connection.getresponse()
        body = response.read()
        if response.status != 200:
            raise SystemExit(f"{page.url} answered {response.status}")
        return body

    return fetch


def queries_count(fetch: Callable[[Page], bytes], page: Page) -> tuple[int, int]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        body = fetch(page)
    return len(captured), len(body)


def report(*, args: argparse.Namespace, pages: list[Page], loads: tuple) -> None:
    from games.models import CardPlay, Hand, Match

    how = f"over HTTP to {args.server}" if args.server else "in-process (Django test Client)"
    print(
        f"\n{datetime.date.today().isoformat()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}, {database_describe()}"
    )
    print(
        f"data: {Match.objects.count()} matches, {Hand.objects.count()} hands, "
        f"{CardPlay.objects.count()} card plays"
    )
    print(f"{args.requests} timed requests per page after {args.warmup} warm-up, {how}")
    print(
        f"load average (1 min) {loads[0][0]:.1f} before the timed requests, "
        f"{loads[1][0]:.1f} after\n"
    )
    in_process = args.server is None
    print(
        "| Page | URL | Median (ms) | p95 (ms) | Python CPU (ms) | Queries (ms) | Queries "
        "| Size (KB) |"
    )
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for page in pages:
        url = page.url + (" (HX-Request)" if page.headers else "")
        cpu = f"{statistics.median(page.cpu_ms):.1f}" if in_process else "-"
        db = f"{statistics.median(page.db_ms):.1f}" if in_process else "-"
        print(
            f"| {page.label} | `{url}` | {page.median:.1f} | {page.p95:.1f} | {cpu} | {db} "
            f"| {page.queries} | {page.size / 1024:.0f} |"
        )
    slow = [page.label for page in pages[1:] if page.p95 >= TARGET_MS]
    verdict = f"over {TARGET_MS} ms at p95: {', '.join(slow)}" if slow else "all under"
    print(f"\ntarget: 95th percentile under {TARGET_MS} ms; {verdict}")


def explain(fetch: Callable[[Page], bytes], pages: list[Page], *, repeat: int = 5) -> None:
    """Each page's queries with the server's own execution time (EXPLAIN ANALYZE, median of
    ``repeat``), slowest first: what to look at when a page is slow."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    print("\nDatabase server time per query (EXPLAIN ANALYZE, median of 5), slowest first:")
    for page in pages:
        with CaptureQueriesContext(connection) as captured:
            fetch(page)
        timed = server_times(captured.captured_queries, repeat=repeat)
        total = sum(ms for ms, _ in timed)
        print(f"\n{page.label}: {total:.2f} ms in {len(timed)} queries")
        for ms, sql in timed:
            print(f"  {ms:6.2f} ms  {sql[:160]}")


def server_times(queries: list[dict[str, str]], *, repeat: int = 5) -> list[tuple[float, str]]:
    """The server's own time (planning and execution, median of ``repeat`` EXPLAIN ANALYZE) of
    each SELECT among ``queries`` (as CaptureQueriesContext keeps them), slowest first."""
    import json

    from django.db import connection

    timed = []
    with connection.cursor() as cursor:
        for query in queries:
            sql = query["sql"]
            if not sql.lstrip().upper().startswith("SELECT"):
                continue
            runs = []
            for _ in range(repeat):
                cursor.execute(f"EXPLAIN (ANALYZE, FORMAT JSON) {sql}")
                (plan,) = cursor.fetchone()
                plan = plan if isinstance(plan, list) else json.loads(plan)
                runs.append(plan[0]["Execution Time"] + plan[0]["Planning Time"])
            timed.append((statistics.median(runs), sql))
    return sorted(timed, reverse=True)


if __name__ == "__main__":
    main()
