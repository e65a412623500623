"""The benchmark's players, their API tokens and their matches, in the bench database.

The database is ``BENCH_LOAD_DATABASE_URL``, by default :data:`DEFAULT_DATABASE_URL` (created when
missing, then migrated; its name must contain "bench", see ``bench._django``). Players are
``load0000``, ``load0001``... with no password; each run gives every one of them a fresh personal
API token (the secret is kept in memory only, as ``accounts.tokens.token_create`` shows it once)
and seats them four by four at new ``hokm4`` matches without a turn clock, as
``games.play.services.match_create`` stores any match. The matches of earlier runs are deleted
first.
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass

from bench._django import database_create, database_describe, settings_prepare

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/hokm_bench_load"
USERNAME_PREFIX = "load"
SEATS = 4
#: Points to win a match: far more than a run plays, so that no table stops before the end.
TARGET = 50


@dataclass(frozen=True, slots=True)
class BenchTable:
    """One match of the benchmark: its id and the token of the player at each seat."""

    match_id: int
    tokens: tuple[str, ...]


def django_setup() -> str:
    """Point Django at the load benchmark's database, create and migrate it; returns a line that
    describes it. Call before anything else of Django."""
    os.environ["BENCH_DATABASE_URL"] = (
        os.environ.get("BENCH_LOAD_DATABASE_URL") or DEFAULT_DATABASE_URL
    )
    # This process only writes the setup: its events must not reach anybody's Redis.
    os.environ.pop("REDIS_URL", None)
    settings_prepare()
    database_create(reset=False)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    return database_describe()


def tables_create(count: int) -> list[BenchTable]:
    """Delete the matches of earlier runs; make ``count`` matches of four bench players each,
    with a fresh token per player."""
    from django.contrib.auth.hashers import make_password
    from django.db import connection, transaction

    from accounts.models import ApiToken, User
    from accounts.tokens import TOKEN_PREFIX, token_hash
    from bench._django import database_settings
    from games.models import Match
    from games.play.services import SeatSpec, match_create

    assert "bench" in str(database_settings()["NAME"])  # never anybody else's matches
    with connection.cursor() as cursor:
        # Every table that refers to a match goes with it; far quicker than a cascade in Python.
        cursor.execute(f"TRUNCATE {Match._meta.db_table} CASCADE")
    names = [f"{USERNAME_PREFIX}{index:04d}" for index in range(count * SEATS)]
    existing = set(User.objects.filter(username__in=names).values_list("username", flat=True))
    unusable = make_password(None)
    User.objects.bulk_create(
        User(username=name, password=unusable) for name in names if name not in existing
    )
    users = {user.username: user for user in User.objects.filter(username__in=names)}
    raws: dict[str, str] = {}
    with transaction.atomic():
        ApiToken.objects.filter(user__username__startswith=USERNAME_PREFIX).delete()
        rows = []
        for name in names:
            secret = secrets.token_urlsafe(32)
            raws[name] = TOKEN_PREFIX + secret
            rows.append(
                ApiToken(
                    user=users[name],
                    name="load benchmark",
                    key_hash=token_hash(raws[name]),
                    prefix=secret[:8],
                )
            )
        ApiToken.objects.bulk_create(rows)
    tables = []
    for table in range(count):
        seated = names[table * SEATS : (table + 1) * SEATS]
        match = match_create(
            variant="hokm4",
            target=TARGET,
            seats=[SeatSpec(name=name, user=users[name]) for name in seated],
        )
        tables.append(BenchTable(match.pk, tuple(raws[name] for name in seated)))
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    return tables
