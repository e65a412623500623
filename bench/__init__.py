"""Speed benchmarks (house rule: speed is measured here, not by timed tests).

See ``docs/performance.md`` for the figures and the exact commands that produced them.
"""
