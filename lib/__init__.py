"""What every app of the site shares, below all of them: no model, no view, no app of its own.

It imports no package of the project, so any layer may use it (docs/architecture.md).
"""
