"""Live play under load: the whole application against a bare Channels relay, on this machine.

    .venv/bin/python -m bench.load.run                      # or: make bench-load
    .venv/bin/python -m bench.load.run --layer both         # pub/sub and the core layer
    .venv/bin/python -m bench.load.run --target baseline,floor --layer both
    .venv/bin/python -m bench.load.run --target app --tables 100 --pace 0.5 --duration 30

For each channel layer (``--layer``, pub/sub by default as on the site) and each target
(``--target``: ``baseline``, the relay of :mod:`bench.load.relay_app`; ``app``, the site; and,
when asked, ``floor``, the relay plus one committed transaction per move of
:mod:`bench.load.floor_app`), it:

1. starts one daphne process (``--processes``) for the target and, for the site, one worker
   (``manage.py hokm_worker``) as in production: ``HOKM_AUTOPLAY=worker``, ``DEBUG=0``,
   PostgreSQL (``BENCH_LOAD_DATABASE_URL``, a database of its own) and Redis;
2. measures the memory of an idle connection: the server's resident memory with every socket of
   the run open and idle, less its memory before they opened, divided by their number (the site's
   sockets are signed in with API tokens and have had their first state);
3. plays ``--tables`` tables at ``--pace`` moves per second each for ``--duration`` seconds and
   measures the latency from a move sent to its version received by all four seats;
4. looks for the saturation point: the rate goes up (or down) by ``--factor`` per step of
   ``--step-duration`` seconds until the 99th percentile crosses ``--limit-ms`` (200 ms), then
   bisects ``--refine`` times between the two paces either side; ``--no-saturation`` skips it.

It prints Markdown tables (and writes them with ``--json``), with the load average before and
after each target: the machine has two cores, shared with the server, the database, Redis and
this generator, so the figures are for comparing the targets of one run, not absolute.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import platform
import secrets
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.load.client import (
    Fleet,
    LoopLag,
    Recorder,
    app_fleet,
    connect_retries,
    relay_fleet,
    window_wait,
)
from bench.load.layers import LAYERS

PROJECT_DIR = Path(__file__).resolve().parents[2]
#: ``floor`` (bench/load/floor_app.py, the relay plus one committed transaction per move) runs
#: only when asked: it bounds what the house rules allow, it is not one of the issue's targets.
TARGETS = ("baseline", "app")
ALL_TARGETS = (*TARGETS, "floor")
DEFAULT_REDIS = {
    "app": "redis://127.0.0.1:6379/12",
    "baseline": "redis://127.0.0.1:6379/13",
    "floor": "redis://127.0.0.1:6379/13",
}
#: Seconds of play before a window opens, after the pace changed.
SETTLE_SECONDS = 5.0
#: The tables' first moves are spread over this many seconds, so that their hands do not all end
#: (and wait for the next deal) in the same instant.
START_SPREAD_SECONDS = 8.0
#: The search for the saturation point goes no slower than one move a minute per table.
SLOWEST_PERIOD = 60.0
#: After a change of pace, at most this long for the moves still on their way to arrive: a step
#: after an overloaded one must not measure the queue that one left.
DRAIN_SECONDS = 20.0


# -- the servers --------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_listening(port: int, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the server did not start; its log:\n{log.read_text()}") from None
            time.sleep(0.2)


@dataclass
class Servers:
    """The processes of one target: its daphne processes and, for the site, its worker."""

    urls: list[str]
    daphne: list[subprocess.Popen]
    others: list[subprocess.Popen] = field(default_factory=list)

    @property
    def pids(self) -> list[int]:
        return [process.pid for process in self.daphne + self.others]


def _redis_flush(url: str) -> None:
    """Empty the target's own Redis database: groups of an earlier run would still be served."""
    import redis

    client = redis.Redis.from_url(url)
    try:
        client.flushdb()
    finally:
        client.close()


@contextmanager
def servers_run(
    target: str, *, layer: str, processes: int, redis_url: str, logs: Path, extra_env: dict
) -> Iterator[Servers]:
    """Start the target's servers; stop them (and only them) when the block ends."""
    _redis_flush(redis_url)
    env = {
        **os.environ,
        "BENCH_LAYER": layer,
        "REDIS_URL": redis_url,
        "PYTHONUNBUFFERED": "1",
        "LOG_LEVEL": "WARNING",
    }
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    if target == "app":
        env.update(
            {
                "DJANGO_SETTINGS_MODULE": "bench.load.app_settings",
                "DATABASE_URL": os.environ["BENCH_DATABASE_URL"],
                "DEBUG": "0",
                "SECRET_KEY": "bench-load-" + secrets.token_urlsafe(32),
                "ALLOWED_HOSTS": "127.0.0.1,localhost",
                "SECURE_SSL_REDIRECT": "0",
                "HOKM_AUTOPLAY": "worker",
                **extra_env,
            }
        )
        application = "hokm_site.asgi:application"
    elif target == "floor":
        from bench.load.floor_app import schema_create

        schema_create(os.environ["BENCH_DATABASE_URL"])
        env["FLOOR_DATABASE_URL"] = os.environ["BENCH_DATABASE_URL"]
        application = "bench.load.floor_app:application"
    else:
        application = "bench.load.relay_app:application"
    started: list[subprocess.Popen] = []
    servers = Servers(urls=[], daphne=[])
    try:
        for number in range(processes):
            port = _free_port()
            log = logs / f"{target}-{layer}-daphne{number}.log"
            command = [sys.executable, "-m", "daphne", "-v", "0", "-b", "127.0.0.1"]
            command += ["-p", str(port), application]
            process = subprocess.Popen(
                command, cwd=PROJECT_DIR, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT
            )
            started.append(process)
            servers.daphne.append(process)
            _wait_listening(port, process, log)
            servers.urls.append(f"ws://127.0.0.1:{port}")
        if target == "app":
            log = logs / f"{target}-{layer}-worker.log"
            worker = subprocess.Popen(
                [sys.executable, "manage.py", "hokm_worker"],
                cwd=PROJECT_DIR,
                env=env,
                stdout=log.open("w"),
                stderr=subprocess.STDOUT,
            )
            started.append(worker)
            servers.others.append(worker)
        yield servers
    finally:
        for process in started:
            process.terminate()
        for process in started:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


# -- what the machine does ----------------------------------------------------------------------


def rss_bytes(pid: int) -> int:
    """Resident memory of a process (``VmRSS``)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of a process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICKS


def machine_busy() -> tuple[float, float]:
    """(busy, total) jiffies of all CPUs so far, from ``/proc/stat``."""
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = values[3] + values[4]
    return sum(values) - idle, sum(values)


def load_average() -> str:
    return "/".join(f"{value:.2f}" for value in os.getloadavg())


class Usage:
    """CPU used between two moments by the servers, this generator and the whole machine."""

    def __init__(self, pids: list[int]) -> None:
        self.pids = pids
        self.began = time.monotonic()
        self.servers = [cpu_seconds(pid) for pid in pids]
        self.client = time.process_time()
        self.machine = machine_busy()

    def take(self) -> dict[str, Any]:
        wall = time.monotonic() - self.began
        busy, total = machine_busy()
        return {
            "server_cpu_pct": [
                round(100 * (cpu_seconds(pid) - before) / wall)
                for pid, before in zip(self.pids, self.servers, strict=True)
            ],
            "client_cpu_pct": round(100 * (time.process_time() - self.client) / wall),
            "machine_busy_pct": round(
                100 * (busy - self.machine[0]) / max(1, total - self.machine[1])
            ),
        }


# -- one target ----------------------------------------------------------------------------------


@dataclass
class Options:
    tables: int
    pace: float
    duration: float
    step_duration: float
    factor: float
    refine: int
    max_steps: int
    limit_ms: float
    saturation: bool


async def _settle(fleet: Fleet) -> None:
    """Let the new pace set in: wait until no move is older than a second (at most
    ``DRAIN_SECONDS``), then ``SETTLE_SECONDS`` more."""
    deadline = time.monotonic() + DRAIN_SECONDS
    while time.monotonic() < deadline:
        old = time.monotonic() - 1.0
        if not any(p.sent < old for table in fleet.tables for p in table.pending.values()):
            break
        await asyncio.sleep(0.2)
    await asyncio.sleep(SETTLE_SECONDS)


async def _window(
    label: str, fleet: Fleet, recorder: Recorder, lag: LoopLag, pids: list[int], seconds: float
) -> dict[str, Any]:
    lag.take()
    usage = Usage(pids)
    window = recorder.open(label)
    await asyncio.sleep(seconds)
    recorder.close()
    used = usage.take()
    lag_figures = lag.take()
    await window_wait(window, fleet.tables)
    return {**window.summary(), **used, **lag_figures, "load": load_average()}


async def drive(
    fleet: Fleet,
    warmup: Fleet,
    servers: Servers,
    options: Options,
    *,
    concurrency: int,
    py_spy: Path | None,
) -> dict[str, Any]:
    """Idle memory, the main point, then the steps to saturation, on open sockets."""
    result: dict[str, Any] = {"load_before": load_average()}
    # A table's sockets on each process first, so that what a process imports and builds once is
    # not counted as the memory of a connection.
    await warmup.open(concurrency=4, first_frame=True)
    await warmup.close()
    await asyncio.sleep(2)
    before = [rss_bytes(process.pid) for process in servers.daphne]
    opened = await fleet.open(concurrency=concurrency, first_frame=True)
    await asyncio.sleep(5)
    after = [rss_bytes(process.pid) for process in servers.daphne]
    sockets = len(fleet.seats)
    result["connect_seconds"] = round(opened, 1)
    result["connect_retries"] = dict(connect_retries)
    connect_retries.clear()
    result["sockets"] = sockets
    result["rss_before_mb"] = round(sum(before) / 2**20, 1)
    result["rss_idle_mb"] = round(sum(after) / 2**20, 1)
    result["kb_per_idle_socket"] = round((sum(after) - sum(before)) / sockets / 1024, 1)
    print(
        f"  {sockets} sockets open in {opened:.1f} s (retries: {result['connect_retries']}); "
        "resident memory "
        f"{result['rss_before_mb']} -> {result['rss_idle_mb']} MB: "
        f"{result['kb_per_idle_socket']} KB per idle socket",
        flush=True,
    )

    recorder = fleet.tables[0].recorder
    lag = LoopLag()
    lag.start()
    rate = options.tables * options.pace
    fleet.start(options.tables / rate, spread=START_SPREAD_SECONDS)
    await asyncio.sleep(START_SPREAD_SECONDS + SETTLE_SECONDS)
    label = f"{options.tables} tables x {options.pace:g}/s"
    spy = None
    if py_spy is not None:
        # Sampling the first daphne process through the main window (docs/performance.md).
        spy = subprocess.Popen(
            [str(Path(sys.executable).parent / "py-spy"), "record", "--pid"]
            + [str(servers.daphne[0].pid), "--duration", str(int(options.duration))]
            + ["--rate", "100", "--idle", "--format", "raw", "--output", str(py_spy)]
            + ["--nonblocking"],
            stdout=subprocess.DEVNULL,
        )
    main = await _window(label, fleet, recorder, lag, servers.pids, options.duration)
    if spy is not None:
        await asyncio.to_thread(spy.wait)
    main["offered"] = round(rate, 1)
    result["main"] = main
    print("  " + _line(main), flush=True)

    steps: list[dict[str, Any]] = []
    if options.saturation:
        # Up (or down) by ``factor`` until the p99 crosses the limit, then bisect (on a log
        # scale) between the fastest rate within it and the slowest beyond it.
        within = rate if main["p99_ms"] <= options.limit_ms else None
        beyond = None if within is not None else rate
        refined = 0
        for _ in range(options.max_steps):
            if within is None:
                if beyond / options.tables <= 1 / SLOWEST_PERIOD:
                    break
                rate = max(beyond / options.factor, options.tables / SLOWEST_PERIOD)
            elif beyond is None:
                rate = within * options.factor
            elif refined < options.refine:
                rate = math.sqrt(within * beyond)
                refined += 1
            else:
                break
            fleet.pace(options.tables / rate)
            await _settle(fleet)
            label = f"{options.tables} tables x {rate / options.tables:.3g}/s"
            step = await _window(label, fleet, recorder, lag, servers.pids, options.step_duration)
            step["offered"] = round(rate, 1)
            steps.append(step)
            print("  " + _line(step), flush=True)
            if step["p99_ms"] <= options.limit_ms:
                within = max(within or 0.0, rate)
            else:
                beyond = min(beyond or math.inf, rate)
    result["steps"] = steps
    result["saturation"] = saturation_point([main, *steps], options.limit_ms)
    result["errors"] = dict(recorder.errors)
    result["frames_received"] = fleet.frames()
    await lag.stop()
    await fleet.close()
    result["load_after"] = load_average()
    return result


def saturation_point(points: list[dict[str, Any]], limit_ms: float) -> dict[str, Any]:
    """The fastest pace asked for whose p99 stayed within the limit (with the rate achieved
    there) and the slowest whose p99 did not, in moves per second."""
    within = [p for p in points if p["p99_ms"] <= limit_ms]
    beyond = [p for p in points if not p["p99_ms"] <= limit_ms]
    best = max(within, key=lambda p: p["offered"]) if within else None
    return {
        "within": best["offered"] if best else None,
        "within_achieved": best["moves_per_second"] if best else None,
        "beyond": min(p["offered"] for p in beyond) if beyond else None,
    }


def _line(point: dict[str, Any]) -> str:
    return (
        f"{point['label']}: offered {point['offered']}, achieved {point['moves_per_second']} "
        f"moves/s; p50 {point['p50_ms']} p95 {point['p95_ms']} p99 {point['p99_ms']} "
        f"max {point['max_ms']} ms; lost {point['lost']}; server CPU {point['server_cpu_pct']}% "
        f"client {point['client_cpu_pct']}% machine {point['machine_busy_pct']}%; "
        f"client loop lag p99 {point['lag_p99_ms']} ms; load {point['load']}"
    )


def target_run(
    target: str, layer: str, options: Options, args: argparse.Namespace, logs: Path
) -> dict[str, Any]:
    """Everything of one target on one layer, from its matches to its servers stopped."""
    recorder = Recorder()
    warm_recorder = Recorder()
    if target == "app":
        from bench.load.players import tables_create

        began = time.monotonic()
        # One more match per process to warm it up with.
        bench_tables = tables_create(options.tables + args.processes)
        print(
            f"  {len(bench_tables)} matches and their players' tokens made in "
            f"{time.monotonic() - began:.1f} s",
            flush=True,
        )
    extra_env = {}
    if args.conn_max_age is not None:
        # Persistent connections instead of the pool: the site refuses both at once.
        extra_env["DATABASE_CONN_MAX_AGE"] = str(args.conn_max_age)
        extra_env["DATABASE_POOL_SIZE"] = "0"
    redis_url = args.redis_app if target == "app" else args.redis_baseline  # floor: the relay's
    with servers_run(
        target,
        layer=layer,
        processes=args.processes,
        redis_url=redis_url,
        logs=logs,
        extra_env=extra_env,
    ) as servers:
        fleets = []
        for number, url in enumerate(servers.urls):
            # Tables are shared out among the processes, all four seats of a table on one.
            mine = range(number, options.tables, len(servers.urls))
            if target == "app":
                fleets.append(app_fleet(url, [bench_tables[i] for i in mine], recorder))
            else:
                fleets.append(relay_fleet(url, len(mine), recorder, first=number * 100_000))
        warmups = []
        for number, url in enumerate(servers.urls):
            if target == "app":
                extra = bench_tables[options.tables + number]
                warmups.append(app_fleet(url, [extra], warm_recorder))
            else:
                warmups.append(relay_fleet(url, 1, warm_recorder, first=10**7 + number))
        warmup = Fleet.merge(warmups)
        fleet = Fleet.merge(fleets)
        py_spy = None
        if args.py_spy is not None:
            py_spy = args.py_spy.with_name(f"{args.py_spy.stem}-{target}-{layer}.txt")
        result = asyncio.run(
            drive(
                fleet,
                warmup,
                servers,
                options,
                concurrency=8 if target == "app" else 32,
                py_spy=py_spy,
            )
        )
    return result


# -- the report ----------------------------------------------------------------------------------


def report(results: dict[str, dict[str, dict[str, Any]]], options: Options) -> str:
    lines = [
        "| layer | target | tables x pace | offered (moves/s) | achieved (moves/s) | p50 (ms) "
        "| p95 (ms) | p99 (ms) | lost | server CPU | client CPU | machine busy | load |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for layer, targets in results.items():
        for target, result in targets.items():
            for point in [result["main"], *result["steps"]]:
                cpu = "+".join(str(c) for c in point["server_cpu_pct"])
                lines.append(
                    f"| {layer} | {target} | {point['label']} | {point['offered']} "
                    f"| {point['moves_per_second']} | {point['p50_ms']} | {point['p95_ms']} "
                    f"| {point['p99_ms']} | {point['lost']} | {cpu}% "
                    f"| {point['client_cpu_pct']}% | {point['machine_busy_pct']}% "
                    f"| {point['load']} |"
                )
    lines += [
        "",
        f"| layer | target | p99 within {options.limit_ms:g} ms up to (moves/s asked) "
        "| achieved there (moves/s) | p99 beyond from (moves/s asked) | idle sockets "
        "| KB per idle socket |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for layer, targets in results.items():
        for target, result in targets.items():
            sat = result["saturation"]
            lines.append(
                f"| {layer} | {target} | {_or_dash(sat['within'])} "
                f"| {_or_dash(sat['within_achieved'])} | {_or_dash(sat['beyond'])} "
                f"| {result['sockets']} | {result['kb_per_idle_socket']} |"
            )
    lines.append("")
    for layer, targets in results.items():
        if {"app", "baseline"} <= targets.keys():
            app, base = targets["app"], targets["baseline"]
            ratio = app["main"]["p99_ms"] / base["main"]["p99_ms"]
            lines.append(
                f"- {layer}: app p99 / baseline p99 at {options.tables} tables x "
                f"{options.pace:g}/s = {ratio:.2f} (target at most 2)"
            )
            a = app["saturation"]["within_achieved"]
            b = base["saturation"]["within_achieved"]
            if a and b:
                lines.append(
                    f"- {layer}: app saturation / baseline saturation = {a / b:.2f} "
                    "(target at least 0.5; a lower bound when a search hit its step limit)"
                )
    return "\n".join(lines)


def _or_dash(value: Any) -> str:
    return "-" if value is None or (isinstance(value, float) and math.isnan(value)) else str(value)


def _targets(value: str) -> tuple[str, ...]:
    named = {"both": TARGETS, "all": ALL_TARGETS}
    targets = named.get(value) or tuple(value.split(","))
    unknown = [target for target in targets if target not in ALL_TARGETS]
    if unknown or len(set(targets)) != len(targets):
        raise argparse.ArgumentTypeError(f"not a list of distinct targets: {value!r}")
    return targets


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--target",
        type=_targets,
        default=TARGETS,
        help="baseline, app, floor, or several joined by commas, run in that order; "
        "both (the default): baseline,app; all: baseline,app,floor",
    )
    parser.add_argument(
        "--layer", choices=[*LAYERS, "both"], default="pubsub", help="the site's default: pubsub"
    )
    parser.add_argument("--tables", type=int, default=200, help="tables at once (200)")
    parser.add_argument("--pace", type=float, default=1.0, help="moves/s per table (1)")
    parser.add_argument("--duration", type=float, default=20, help="seconds measured (20)")
    parser.add_argument(
        "--step-duration", type=float, default=10, help="seconds per saturation step (10)"
    )
    parser.add_argument("--factor", type=float, default=2.0, help="rate change per step (2)")
    parser.add_argument(
        "--refine", type=int, default=2, help="bisection steps once the limit is bracketed (2)"
    )
    parser.add_argument("--max-steps", type=int, default=8, help="saturation steps at most (8)")
    parser.add_argument("--limit-ms", type=float, default=200, help="the p99 of saturation")
    parser.add_argument("--no-saturation", dest="saturation", action="store_false")
    parser.add_argument(
        "--redis-app", default=DEFAULT_REDIS["app"], help="the site's Redis database (flushed)"
    )
    parser.add_argument(
        "--redis-baseline",
        default=DEFAULT_REDIS["baseline"],
        help="the relay's Redis database (flushed)",
    )
    parser.add_argument("--processes", type=int, default=1, help="daphne processes per target")
    parser.add_argument(
        "--conn-max-age",
        type=int,
        help="DATABASE_CONN_MAX_AGE for the site, with its pool off (default: the site's pool)",
    )
    parser.add_argument(
        "--py-spy",
        type=Path,
        help="sample the daphne process with py-spy through the main window; collapsed stacks "
        "to PATH-<target>-<layer>.txt (needs py-spy in the venv)",
    )
    parser.add_argument("--json", type=Path, help="also write the figures here")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    options = Options(
        tables=args.tables,
        pace=args.pace,
        duration=args.duration,
        step_duration=args.step_duration,
        factor=args.factor,
        refine=args.refine,
        max_steps=args.max_steps,
        limit_ms=args.limit_ms,
        saturation=args.saturation,
    )
    targets = args.target
    layers = LAYERS if args.layer == "both" else (args.layer,)
    print(
        f"{platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} CPUs, "
        f"load average {load_average()}",
        flush=True,
    )
    if "app" in targets or "floor" in targets:
        from bench.load.players import django_setup

        print(f"database: {django_setup()}", flush=True)
    logs = Path(tempfile.mkdtemp(prefix="hokm-bench-load-"))
    print(f"server logs in {logs}", flush=True)
    results: dict[str, dict[str, dict[str, Any]]] = {}
    for layer in layers:
        for target in targets:
            print(f"{target}, {layer} layer (load average {load_average()}):", flush=True)
            results.setdefault(layer, {})[target] = target_run(target, layer, options, args, logs)
    print()
    print(report(results, options))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
