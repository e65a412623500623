"""Setting up Django for the benchmark scripts, on a database of their own.

The scripts run from the project directory as modules (``python -m bench.fill_history``). They use
``BENCH_DATABASE_URL``, by default :data:`DEFAULT_DATABASE_URL`, a PostgreSQL database that exists
for the benchmark only, and never ``DATABASE_URL``: a fill must not land in the development
database someone has exported. Its name must contain "bench" for the same reason.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/hokm_bench"
PROJECT_DIR = Path(__file__).resolve().parent.parent


def settings_prepare(*, cached_templates: bool = True) -> None:
    """Point Django at the benchmark database and configure it, without opening a connection.

    ``cached_templates`` compiles each template once, as production does (DEBUG=0); the
    development settings re-read every template on every render, which would be measured too.
    """
    if str(PROJECT_DIR) not in sys.path:
        sys.path.insert(0, str(PROJECT_DIR))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "hokm_site.settings")
    os.environ["DATABASE_URL"] = os.environ.get("BENCH_DATABASE_URL") or DEFAULT_DATABASE_URL
    # Nothing may move a match behind the benchmark's back.
    os.environ["HOKM_AUTOPLAY"] = "off"
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    from django.conf import settings

    if cached_templates:
        engine = settings.TEMPLATES[0]
        loaders = engine["OPTIONS"].get("loaders")
        if loaders and not any(isinstance(item, tuple) for item in loaders):
            engine["OPTIONS"]["loaders"] = [("django.template.loaders.cached.Loader", loaders)]


def database_settings() -> dict[str, Any]:
    from django.conf import settings

    db = settings.DATABASES["default"]
    if "bench" not in str(db["NAME"]):
        raise SystemExit(f"BENCH_DATABASE_URL names {db['NAME']!r}: its name must contain 'bench'")
    return db


def is_postgresql() -> bool:
    return database_settings()["ENGINE"] == "django.db.backends.postgresql"


def _maintenance_connection():
    """A connection to the server's ``postgres`` database, to create or drop the bench one."""
    import psycopg

    db = database_settings()
    return psycopg.connect(
        dbname="postgres",
        user=db.get("USER") or None,
        password=db.get("PASSWORD") or None,
        host=db.get("HOST") or None,
        port=db.get("PORT") or None,
        autocommit=True,
    )


def database_create(*, reset: bool) -> None:
    """Create the PostgreSQL database if it is missing; with ``reset`` drop it first (its name
    contains "bench": :func:`database_settings` refuses any other)."""
    if not is_postgresql():
        return
    from psycopg import sql

    name = database_settings()["NAME"]
    with _maintenance_connection() as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if exists and reset:
            conn.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(name)))
            exists = None
        if not exists:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def database_describe() -> str:
    """The database in use, for the reports (never its password)."""
    db = database_settings()
    if not is_postgresql():
        return f"{db['ENGINE'].rsplit('.', 1)[-1]} {db['NAME']}"
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        (version,) = cursor.fetchone()
    return f"PostgreSQL {version.split()[0]}, database {db['NAME']} on {db.get('HOST') or 'socket'}"
