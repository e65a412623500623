"""The corpus of game records in tests/records (its README.md says how it was made), and the
records made from it that no writer of the format would produce: a trump that is a list, a NaN."""

from __future__ import annotations

import json
from pathlib import Path

CORPUS = Path(__file__).resolve().parent / "records"


def corpus_document(name: str) -> dict:
    """The record ``name`` of the corpus (``valid/...`` or ``faulty/...``), read as JSON."""
    return json.loads((CORPUS / name).read_text())


def with_trump(value: object) -> dict:
    """A valid record whose third hand's trump is ``value``."""
    document = corpus_document("valid/hokm4_match_target7.json")
    document["hands"][2]["trump"] = value
    return document


def with_constant(constant: str) -> bytes:
    """A valid record holding ``constant`` (NaN, Infinity) as a value: JSON has no such word."""
    text = json.dumps(corpus_document("valid/hokm4_match_target7.json"))
    return text.replace('"format":', f'"note": {constant}, "format":', 1).encode()
