"""Moving the moderation models from ``accounts`` to ``moderation`` keeps every row (issue 19).

A database at the state before the move (``accounts.0004_moderation``, no ``moderation``
migration) is filled as a live site would be: matches from ``bench.fill_history``, moderation
rows, their content types, a permission and an admin log entry written through the models of that
state. It then migrates forward and back again, and every table must keep its rows.
"""

from __future__ import annotations

import argparse
from datetime import timedelta
from typing import Any

import pytest
from django.apps.registry import Apps
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from bench.fill_history import fill, users_ensure

#: Before the move: the moderation models are the accounts app's, the moderation app is empty.
BEFORE_MOVE = [("accounts", "0004_moderation"), ("moderation", None)]
#: The moved models, by class name (their content types use the lower-case form).
MOVED_MODELS = ["Report", "Sanction", "Appeal", "ModeratorNote", "ModerationLogEntry"]
CONTENT_TYPE_NAMES = [name.lower() for name in MOVED_MODELS]
#: A small history: a few seconds to play on SQLite and PostgreSQL, enough matches that the
#: moderation rows can point at some, and matches still in play among them.
HISTORY = argparse.Namespace(matches=30, playing=3, users=8, bench_share=0.35, batch=250, seed=5)


def migrate(targets: list[tuple[str, str | None]]) -> MigrationExecutor:
    """Migrate the test database to ``targets``; returns a new executor, whose loader has read the
    applied migrations again (the old one still knows those from before)."""
    MigrationExecutor(connection).migrate(targets)
    return MigrationExecutor(connection)


def applied_apps(executor: MigrationExecutor) -> Apps:
    """The historical models of the state the database is in."""
    return executor.loader.project_state(list(executor.loader.applied_migrations)).apps


def table_counts() -> dict[str, int]:
    """The rows of every table in the database, but the migrations' own record, which gains a row
    for each migration applied."""
    counts = {}
    with connection.cursor() as cursor:
        for table in sorted(connection.introspection.table_names(cursor)):
            if table == "django_migrations":
                continue
            cursor.execute(f"SELECT COUNT(*) FROM {connection.ops.quote_name(table)}")
            counts[table] = cursor.fetchone()[0]
    return counts


def moved_rows(apps: Apps, app_label: str) -> dict[str, list[dict[str, Any]]]:
    """Every field of every row of the moved models, read through ``app_label``'s models."""
    return {
        name: list(apps.get_model(app_label, name).objects.order_by("pk").values())
        for name in MOVED_MODELS
    }


def content_types(apps: Apps) -> dict[tuple[str, str], int]:
    """The ids of the moved models' content types, by (app label, model)."""
    ContentType = apps.get_model("contenttypes", "ContentType")  # noqa: N806
    rows = ContentType.objects.filter(model__in=CONTENT_TYPE_NAMES)
    return {(row.app_label, row.model): row.pk for row in rows}


def history_fill() -> list:
    """The bench's users and matches, stored by the bench's own functions; returns the users."""
    users = users_ensure(count=HISTORY.users, seed=HISTORY.seed)
    fill(args=HISTORY, users=users)
    return users


def moderation_rows_add(apps: Apps, *, users: list) -> dict[str, Any]:
    """What moderating a site leaves, written through the accounts app's models before the move;
    returns the ids the test follows."""
    Match = apps.get_model("games", "Match")  # noqa: N806
    Report = apps.get_model("accounts", "Report")  # noqa: N806
    Sanction = apps.get_model("accounts", "Sanction")  # noqa: N806
    Appeal = apps.get_model("accounts", "Appeal")  # noqa: N806
    ModeratorNote = apps.get_model("accounts", "ModeratorNote")  # noqa: N806
    ModerationLogEntry = apps.get_model("accounts", "ModerationLogEntry")  # noqa: N806
    now = timezone.now()
    moderator, reporter, cheat, rude = (user.pk for user in users[1:5])
    match, other_match = Match.objects.order_by("pk").values_list("pk", flat=True)[:2]

    open_report = Report.objects.create(
        reporter_id=reporter,
        reported_id=rude,
        reason="chat_abuse",
        comment="insults after every trick",
        match_id=match,
        hand=2,
        trick=5,
        chat=[{"id": 7, "text": "you again?"}, {"id": 8, "text": "سلام"}],
    )
    closed_report = Report.objects.create(
        reporter_id=reporter,
        reported_id=cheat,
        reason="cheating",
        match_id=other_match,
        status="closed",
        taken_by_id=moderator,
        taken_at=now - timedelta(hours=2),
        decision="two accounts at one table",
        closed_at=now - timedelta(hours=1),
    )
    Report.objects.create(
        reporter_id=rude,
        reported_id=reporter,
        reason="other",
        status="taken",
        taken_by_id=moderator,
    )
    warning = Sanction.objects.create(
        user_id=rude, kind="warn", reason="mind your words", moderator_id=moderator, seen_at=now
    )
    Sanction.objects.create(
        user_id=rude,
        kind="mute",
        reason="insults",
        moderator_id=moderator,
        report_id=open_report.pk,
        ends_at=now + timedelta(days=1),
    )
    ban = Sanction.objects.create(
        user_id=cheat,
        kind="ban",
        reason="collusion",
        moderator_id=moderator,
        report_id=closed_report.pk,
        match_id=other_match,
    )
    # A play ban the site gave by itself: no moderator.
    Sanction.objects.create(
        user_id=reporter,
        kind="play_ban",
        reason="left three matches",
        match_id=match,
        starts_at=now - timedelta(days=3),
        ends_at=now - timedelta(days=2),
        lifted_at=now - timedelta(days=2, hours=12),
    )
    appeal = Appeal.objects.create(
        sanction_id=ban.pk,
        text="it was my brother",
        status="refused",
        decided_by_id=moderator,
        decision="same address, same table, every night",
        decided_at=now,
    )
    ModeratorNote.objects.create(user_id=cheat, author_id=moderator, text="watch his partners")
    report_entry = ModerationLogEntry.objects.create(
        moderator_id=moderator,
        target_id=cheat,
        moderator_name="player001",
        target_name="player003",
        action="report_close",
        reason="two accounts at one table",
        report_id=closed_report.pk,
        details={"matches": [other_match]},
    )
    sanction_entry = ModerationLogEntry.objects.create(
        moderator_id=moderator,
        target_id=cheat,
        action="sanction_give",
        reason="collusion",
        report_id=closed_report.pk,
        sanction_id=ban.pk,
        details={"kind": "ban"},
    )
    # The site's own entry: no moderator, only the sanction.
    ModerationLogEntry.objects.create(
        target_id=rude, action="sanction_give", sanction_id=warning.pk, details={}
    )
    return {
        "moderator": moderator,
        "report": closed_report.pk,
        "ban": ban.pk,
        "appeal": appeal.pk,
        "report_entry": report_entry.pk,
        "sanction_entry": sanction_entry.pk,
    }


def admin_traces_add(apps: Apps, *, moderator: int, report: int) -> dict[str, int]:
    """What the admin leaves on a live site about the accounts app's moderation models: their
    content types, a permission a moderator holds and an admin log entry on a report; returns
    their ids.

    The content types may be there already (the rename back of the moderation app's, made by
    ``post_migrate`` when the test database was created): a site has one of each."""
    ContentType = apps.get_model("contenttypes", "ContentType")  # noqa: N806
    Permission = apps.get_model("auth", "Permission")  # noqa: N806
    LogEntry = apps.get_model("admin", "LogEntry")  # noqa: N806
    User = apps.get_model("accounts", "User")  # noqa: N806
    types = {
        model: ContentType.objects.get_or_create(app_label="accounts", model=model)[0]
        for model in CONTENT_TYPE_NAMES
    }
    permission, _ = Permission.objects.get_or_create(
        content_type=types["report"], codename="view_report", defaults={"name": "Can view report"}
    )
    User.objects.get(pk=moderator).user_permissions.add(permission)
    entry = LogEntry.objects.create(
        user_id=moderator,
        content_type=types["report"],
        object_id=str(report),
        object_repr="cheating or collusion: player003",
        action_flag=2,
        change_message='[{"changed": {"fields": ["Status"]}}]',
    )
    return {"permission": permission.pk, "log_entry": entry.pk}


def moved_rows_are_today_models(ids: dict[str, Any]) -> None:
    """After the move, the site's own models read the rows and follow their relations, and the
    permission and admin log entry made before the move name the moderation app's models."""
    from django.contrib.admin.models import LogEntry
    from django.contrib.auth.models import Permission

    from accounts.models import User
    from moderation.models import ModerationLogEntry, Report, Sanction

    ban = Sanction.objects.get(pk=ids["ban"])
    assert (ban.kind, ban.report_id, ban.appeal.pk) == ("ban", ids["report"], ids["appeal"])
    assert ban.appeal.status == "refused"
    report = Report.objects.get(pk=ids["report"])
    assert list(report.sanctions.all()) == [ban]
    assert set(report.log_entries.values_list("pk", flat=True)) == {
        ids["report_entry"],
        ids["sanction_entry"],
    }
    assert ModerationLogEntry.objects.get(pk=ids["sanction_entry"]).sanction == ban
    permission = Permission.objects.select_related("content_type").get(pk=ids["permission"])
    assert permission.content_type.app_label == "moderation"
    assert User.objects.get(pk=ids["moderator"]).has_perm("moderation.view_report")
    assert LogEntry.objects.get(pk=ids["log_entry"]).get_edited_object() == report


@pytest.mark.django_db(transaction=True)
def test_moving_moderation_to_its_app_keeps_every_row_forward_and_back() -> None:
    latest = MigrationExecutor(connection).loader.graph.leaf_nodes()
    try:
        # The bench's functions (written against today's models) fill the history first: going
        # back also takes away the accounts migrations after the move (the players' looks), so
        # the user table is not today's any more once there.
        users = history_fill()
        executor = migrate(BEFORE_MOVE)
        undone = set(latest) - set(executor.loader.applied_migrations)
        # Leaves: moderation's own later migrations (0002, the rating flags) and accounts' after
        # the move (the players' looks, then their language) go back with it.
        assert undone == {("accounts", "0007_language"), ("moderation", "0002_rating_flag")}
        old_apps = applied_apps(executor)
        ids = moderation_rows_add(old_apps, users=users)
        ids |= admin_traces_add(old_apps, moderator=ids["moderator"], report=ids["report"])
        counts = table_counts()
        rows = moved_rows(old_apps, "accounts")
        types = content_types(old_apps)
        assert counts["games_match"] == HISTORY.matches + HISTORY.playing
        assert counts["games_cardplay"] > 0
        assert [len(rows[name]) for name in MOVED_MODELS] == [3, 4, 1, 1, 3]
        assert set(types) == {("accounts", model) for model in CONTENT_TYPE_NAMES}

        executor = migrate(latest)

        assert table_counts() == counts | {"moderation_ratingflag": 0}
        new_apps = applied_apps(executor)
        assert moved_rows(new_apps, "moderation") == rows
        # Renamed in place: the same ids, so what points at them (permissions, admin log
        # entries, generic relations) follows without a write.
        assert content_types(new_apps) == {
            ("moderation", model): pk for (_, model), pk in types.items()
        }
        moved_rows_are_today_models(ids)

        executor = migrate(BEFORE_MOVE)

        assert table_counts() == counts
        assert moved_rows(applied_apps(executor), "accounts") == rows
        assert content_types(applied_apps(executor)) == types
    finally:
        # Later tests in this worker share the database: leave it as migrate left it.
        migrate(latest)
