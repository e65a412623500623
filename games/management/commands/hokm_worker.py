"""``python manage.py hokm_worker``: the worker that makes computer players move, deals the next
hand and ends turn clocks (R8.1), for servers that do not run it in a thread (``HOKM_AUTOPLAY=
worker``). Run one or more beside the Daphne processes; every deadline is in the database, so a
worker can stop and start at any time and several never take a step twice (games/play/autoplay.py).
"""

from __future__ import annotations

import signal
from typing import Any

from django.core.management.base import BaseCommand

from games.play.autoplay import POLL_SECONDS, Worker
from games.play.bot_pool import bot_pool_shutdown


class Command(BaseCommand):
    help = "Run the worker: computer moves, next deals and turn clocks, until stopped."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument(
            "--poll",
            type=float,
            default=POLL_SECONDS,
            help=f"longest pause between two looks at the database (default {POLL_SECONDS} s)",
        )

    def handle(self, *args: Any, poll: float, **options: Any) -> None:
        if poll <= 0:
            self.stderr.write("--poll must be positive")
            raise SystemExit(2)
        from django.conf import settings

        if "InMemory" in settings.CHANNEL_LAYERS["default"]["BACKEND"]:
            # Its events would stay in this process: pages would not see computer moves or
            # timeouts until they reload.
            self.stderr.write(
                "warning: the in-memory channel layer cannot reach the server's sockets; "
                "set REDIS_URL (the server's own worker thread needs nothing)."
            )
        worker = Worker(poll=poll)

        def stop(signum: int, frame: Any) -> None:
            worker.stop()

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        self.stdout.write(f"hokm worker running (poll {poll} s); stop with Ctrl-C")
        self.stdout.flush()
        try:
            worker.run()
        finally:
            bot_pool_shutdown()
