"""What one move costs the service (issue 24, docs/performance.md, "A cheaper move"): the wall time
of ``match_client_action`` in one thread, with the position kept as on the live site, for the
first 30 moves of fresh hokm4 matches between four people, one durable transaction each.

    .venv/bin/python -m bench.move_bench --matches 10

On ``BENCH_DATABASE_URL`` (bench/_django.py), migrated first. Two versions of the code compare
side by side: a ``git worktree`` of the older commit run from its own directory with this venv's
Python (``cd /tmp/old && /path/.venv/bin/python -m bench.move_bench``), runs alternated, since the
machine's load moves the figures by a third from minute to minute.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from bench._django import database_create, database_describe, settings_prepare


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=10, help="fresh matches (10)")
    options = parser.parse_args(argv)
    settings_prepare(cached_templates=True)
    database_create(reset=False)
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from games.engine import match_apply, match_legal_actions
    from games.models import Match
    from games.play.selectors import match_position
    from games.play.services import SeatSpec, match_client_action, match_create

    call_command("migrate", verbosity=0)
    users = [get_user_model().objects.get_or_create(username=f"move{n}")[0] for n in range(4)]
    times: list[float] = []
    cpu: list[float] = []  # this thread's CPU: the Python a move costs, without the waits
    seq = int(time.time())  # fresh ids each run: a match's ids are its own anyway
    for number in range(options.matches):
        match = match_create(
            variant="hokm4",
            target=50,
            seats=[SeatSpec(name=u.username, user=u) for u in users],
            seed=number + 1,
        )
        state = match_position(match=Match.objects.get(pk=match.pk)).state
        for _ in range(30):
            action = match_legal_actions(state)[0]
            seq += 1
            started, started_cpu = time.perf_counter(), time.thread_time()
            match_client_action(
                match=match.pk, seat=action.seat, action=action, client_seq=seq, user=users[0]
            )
            times.append(time.perf_counter() - started)
            cpu.append(time.thread_time() - started_cpu)
            state = match_apply(state, action)
    times.sort()
    p50, p90 = statistics.median(times), times[int(len(times) * 0.9)]
    print(
        f"{os.getcwd()}: {database_describe()}; {len(times)} moves, wall p50 {p50 * 1000:.2f} "
        f"ms, p90 {p90 * 1000:.2f} ms; CPU of the move's thread p50 "
        f"{statistics.median(cpu) * 1000:.2f} ms, mean {statistics.mean(cpu) * 1000:.2f} ms"
    )


if __name__ == "__main__":
    main()
