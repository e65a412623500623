"""The floor: the bare relay plus the least a server that keeps every move must do for it.

The site's house rules (docs/architecture.md) make every move one database transaction that locks
its match's row, stores the move and bumps the match's version, with the event sent after the
commit. This consumer does exactly that much and nothing else: per frame, one PostgreSQL
transaction (``UPDATE ... RETURNING`` locks the table's row and bumps its version in one
statement, an ``INSERT`` stores the frame), in a pool of threads with pooled psycopg connections
so that tables do not wait for each other, then the same relay as :mod:`bench.load.relay_app`.
No Django ORM, no validation, no authentication, no rendering.

Whatever the site does, it does at least this; so the floor's figures bound what any site that
keeps the house rules could reach on this machine, and say how much of the distance between
the site and the relay is the database itself::

    BENCH_LAYER=pubsub REDIS_URL=redis://127.0.0.1:6379/13 \\
    FLOOR_DATABASE_URL=postgres://postgres@127.0.0.1:5432/hokm_bench_load \\
        .venv/bin/python -m daphne -p 8100 bench.load.floor_app:application
"""

from __future__ import annotations

import asyncio
import os
from concurrent.futures import ThreadPoolExecutor

from psycopg_pool import ConnectionPool

from bench.load.relay_app import RelayConsumer, application_for

#: Threads (and connections) that store moves side by side: as many as the site's move threads.
THREADS = 4

#: The floor's own tables in the benchmark's database, made afresh for each run.
SCHEMA = """
DROP TABLE IF EXISTS bench_floor_move, bench_floor_table;
CREATE TABLE bench_floor_table (id integer PRIMARY KEY, version integer NOT NULL);
CREATE TABLE bench_floor_move (
    id bigserial PRIMARY KEY,
    table_id integer NOT NULL REFERENCES bench_floor_table (id),
    version integer NOT NULL,
    body text NOT NULL,
    UNIQUE (table_id, version)
);
"""

#: ``BENCH_FLOOR_SYNCHRONOUS_COMMIT=off`` measures what the floor would gain by not waiting for
#: the commit to reach the disk: acknowledged moves could then be lost in a crash, which the
#: house rules forbid, so the figures of the target are taken with PostgreSQL's default, ``on``.
SYNCHRONOUS_COMMIT = os.environ.get("BENCH_FLOOR_SYNCHRONOUS_COMMIT", "on")


def _configure(connection) -> None:
    connection.execute("SELECT set_config('synchronous_commit', %s, false)", (SYNCHRONOUS_COMMIT,))
    connection.commit()


_pool = ConnectionPool(
    os.environ.get("FLOOR_DATABASE_URL", ""),
    min_size=THREADS,
    max_size=THREADS,
    open=False,
    configure=_configure,
)
_threads = ThreadPoolExecutor(max_workers=THREADS, thread_name_prefix="floor-moves")


def schema_create(database_url: str) -> None:
    """Make the floor's tables, empty (the benchmark runs this before starting the server)."""
    import psycopg

    with psycopg.connect(database_url, autocommit=True) as connection:
        connection.execute(SCHEMA)


def table_open(table: int) -> None:
    with _pool.connection() as connection:
        connection.execute(
            "INSERT INTO bench_floor_table (id, version) VALUES (%s, 0) ON CONFLICT DO NOTHING",
            (table,),
        )


def move_store(table: int, body: str) -> None:
    """One transaction: lock and bump the table's row, store the move; committed on return."""
    with _pool.connection() as connection, connection.transaction():
        (version,) = connection.execute(
            "UPDATE bench_floor_table SET version = version + 1 WHERE id = %s RETURNING version",
            (table,),
        ).fetchone()
        connection.execute(
            "INSERT INTO bench_floor_move (table_id, version, body) VALUES (%s, %s, %s)",
            (table, version, body),
        )


class FloorConsumer(RelayConsumer):
    """The relay, storing each frame in its own committed transaction before relaying it."""

    async def connect(self) -> None:
        self.table = int(self.scope["url_route"]["kwargs"]["table"])
        _pool.open()  # once; later calls do nothing
        await asyncio.get_running_loop().run_in_executor(_threads, table_open, self.table)
        await super().connect()

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if text_data is not None:
            loop = asyncio.get_running_loop()
            await loop.run_in_executor(_threads, move_store, self.table, text_data)
        await super().receive(text_data, bytes_data)


application = application_for(FloorConsumer)
