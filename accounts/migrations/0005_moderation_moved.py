"""The moderation models leave the accounts app's picture for the moderation app's.

State only: their tables stay as they are and now belong to ``moderation.0001_initial``.
"""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0004_moderation'),
        ('moderation', '0001_initial'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveField(
                    model_name='moderationlogentry',
                    name='moderator',
                ),
                migrations.RemoveField(
                    model_name='moderationlogentry',
                    name='report',
                ),
                migrations.RemoveField(
                    model_name='moderationlogentry',
                    name='sanction',
                ),
                migrations.RemoveField(
                    model_name='moderationlogentry',
                    name='target',
                ),
                migrations.RemoveField(
                    model_name='moderatornote',
                    name='author',
                ),
                migrations.RemoveField(
                    model_name='moderatornote',
                    name='user',
                ),
                migrations.RemoveField(
                    model_name='report',
                    name='match',
                ),
                migrations.RemoveField(
                    model_name='report',
                    name='reported',
                ),
                migrations.RemoveField(
                    model_name='report',
                    name='reporter',
                ),
                migrations.RemoveField(
                    model_name='report',
                    name='taken_by',
                ),
                migrations.RemoveField(
                    model_name='sanction',
                    name='report',
                ),
                migrations.RemoveField(
                    model_name='sanction',
                    name='match',
                ),
                migrations.RemoveField(
                    model_name='sanction',
                    name='moderator',
                ),
                migrations.RemoveField(
                    model_name='sanction',
                    name='user',
                ),
                migrations.DeleteModel(
                    name='Appeal',
                ),
                migrations.DeleteModel(
                    name='ModerationLogEntry',
                ),
                migrations.DeleteModel(
                    name='ModeratorNote',
                ),
                migrations.DeleteModel(
                    name='Report',
                ),
                migrations.DeleteModel(
                    name='Sanction',
                ),
            ],
        ),
    ]
