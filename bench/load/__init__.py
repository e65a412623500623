"""The live-play load benchmark (issue 8): the whole application against a bare Channels relay.

``python -m bench.load.run`` (or ``make bench-load``) starts the servers, plays real matches
over the JSON protocol of docs/protocol.md with hundreds of tables at a fixed pace, and prints the
figures of docs/performance.md, "Live play under load" and "Channel layer".

- :mod:`bench.load.layers`: the two Redis channel layers compared (the core layer and pub/sub);
- :mod:`bench.load.app_settings`: the site's settings with the layer chosen by ``BENCH_LAYER``;
- :mod:`bench.load.relay_app`: the bare baseline, a consumer that relays a move to a group of four;
- :mod:`bench.load.floor_app`: the relay plus one committed PostgreSQL transaction per move, the
  least a server that keeps its moves does (``--target floor``);
- :mod:`bench.load.players`: bench users, their API tokens and the matches, in the bench database;
- :mod:`bench.load.client`: the asyncio WebSocket clients, their pace and the latency they see;
- :mod:`bench.load.run`: the servers, the steps of a run and the report.
"""
