"""What keeps a module pure (STYLE.md): it imports nothing from Django, Channels or their servers.
The engine's test (tests/test_engine_is_pure.py) and the bots' tests check their modules with it."""

from __future__ import annotations

import ast

FORBIDDEN_PACKAGES = {"django", "channels", "channels_redis", "daphne"}


def forbidden_imports(source: str, filename: str) -> list[str]:
    """Top-level packages from FORBIDDEN_PACKAGES imported anywhere in the module."""
    found = []
    for node in ast.walk(ast.parse(source, filename=filename)):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules = [node.module]
        else:
            continue
        found += [
            f"line {node.lineno}: {module}"
            for module in modules
            if module.split(".")[0] in FORBIDDEN_PACKAGES
        ]
    return found
