"""The moderation models move here from the accounts app, rows and tables untouched.

Only Django's picture of the models moves (``SeparateDatabaseAndState``): the tables keep their
names (``db_table``), and their content types are renamed so that permissions and admin log
entries that point at them follow. Migration ``accounts.0005_moderation_moved`` takes the models
out of the accounts app's picture.
"""

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models


MODELS = ["report", "sanction", "appeal", "moderatornote", "moderationlogentry"]


def content_types_move(apps, schema_editor, *, old, new):
    ContentType = apps.get_model("contenttypes", "ContentType")
    ContentType.objects.using(schema_editor.connection.alias).filter(
        app_label=old, model__in=MODELS
    ).update(app_label=new)


def content_types_forward(apps, schema_editor):
    content_types_move(apps, schema_editor, old="accounts", new="moderation")


def content_types_backward(apps, schema_editor):
    content_types_move(apps, schema_editor, old="moderation", new="accounts")


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('games', '0007_table_idle'),
        ('accounts', '0004_moderation'),
        ('contenttypes', '0002_remove_content_type_name'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.RunPython(content_types_forward, content_types_backward),
            ],
            state_operations=[
                migrations.CreateModel(
                    name='ModeratorNote',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('text', models.TextField(max_length=4000, verbose_name='note')),
                        ('created_at', models.DateTimeField(default=django.utils.timezone.now, verbose_name='created at')),
                        ('author', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='moderator_notes_written', to='accounts.user', verbose_name='author')),
                        ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='moderator_notes', to='accounts.user', verbose_name='player')),
                    ],
                    options={
                        'verbose_name': 'moderator note',
                        'verbose_name_plural': 'moderator notes',
                        'db_table': 'accounts_moderatornote',
                        'ordering': ['-created_at'],
                    },
                ),
                migrations.CreateModel(
                    name='Report',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('reason', models.CharField(choices=[('chat_abuse', 'abuse in chat'), ('cheating', 'cheating or collusion'), ('stalling', 'deliberate stalling or quitting'), ('offensive_name', 'offensive name'), ('other', 'other')], max_length=20, verbose_name='reason')),
                        ('comment', models.TextField(blank=True, max_length=1000, verbose_name='comment')),
                        ('hand', models.PositiveSmallIntegerField(blank=True, null=True, verbose_name='hand')),
                        ('trick', models.PositiveSmallIntegerField(blank=True, null=True, verbose_name='trick')),
                        ('chat', models.JSONField(blank=True, default=list, verbose_name='chat around the moment')),
                        ('status', models.CharField(choices=[('open', 'open'), ('taken', 'taken'), ('closed', 'closed')], default='open', max_length=10, verbose_name='status')),
                        ('taken_at', models.DateTimeField(blank=True, null=True, verbose_name='taken at')),
                        ('decision', models.TextField(blank=True, verbose_name='decision')),
                        ('closed_at', models.DateTimeField(blank=True, null=True, verbose_name='closed at')),
                        ('created_at', models.DateTimeField(default=django.utils.timezone.now, verbose_name='created at')),
                        ('match', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='reports', to='games.match', verbose_name='match')),
                        ('reported', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='reports', to='accounts.user', verbose_name='reported player')),
                        ('reporter', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='reports_made', to='accounts.user', verbose_name='reporter')),
                        ('taken_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='reports_taken', to='accounts.user', verbose_name='taken by')),
                    ],
                    options={
                        'verbose_name': 'report',
                        'verbose_name_plural': 'reports',
                        'db_table': 'accounts_report',
                    },
                ),
                migrations.CreateModel(
                    name='Sanction',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('kind', models.CharField(choices=[('warn', 'warning'), ('mute', 'mute in chat'), ('suspend', 'suspension'), ('ban', 'ban'), ('rename', 'forced rename'), ('void', 'match voided'), ('play_ban', 'play ban for quitting')], max_length=10, verbose_name='kind')),
                        ('reason', models.TextField(max_length=1000, verbose_name='reason')),
                        ('starts_at', models.DateTimeField(default=django.utils.timezone.now, verbose_name='starts at')),
                        ('ends_at', models.DateTimeField(blank=True, null=True, verbose_name='ends at')),
                        ('lifted_at', models.DateTimeField(blank=True, null=True, verbose_name='lifted at')),
                        ('seen_at', models.DateTimeField(blank=True, help_text='When the player saw it.', null=True, verbose_name='seen at')),
                        ('match', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='sanctions', to='games.match', verbose_name='match')),
                        ('moderator', models.ForeignKey(blank=True, help_text='Empty for a play ban the site gave by itself.', null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='sanctions_given', to='accounts.user', verbose_name='moderator')),
                        ('report', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='sanctions', to='moderation.report', verbose_name='report')),
                        ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='sanctions', to='accounts.user', verbose_name='player')),
                    ],
                    options={
                        'verbose_name': 'sanction',
                        'verbose_name_plural': 'sanctions',
                        'db_table': 'accounts_sanction',
                    },
                ),
                migrations.CreateModel(
                    name='ModerationLogEntry',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('moderator_name', models.CharField(blank=True, max_length=150, verbose_name='moderator name')),
                        ('target_name', models.CharField(blank=True, max_length=150, verbose_name='player name')),
                        ('action', models.CharField(max_length=32, verbose_name='action')),
                        ('reason', models.TextField(blank=True, verbose_name='reason')),
                        ('details', models.JSONField(blank=True, default=dict, verbose_name='details')),
                        ('created_at', models.DateTimeField(default=django.utils.timezone.now, verbose_name='when')),
                        ('moderator', models.ForeignKey(blank=True, help_text='Empty for an action the site took by itself (a play ban).', null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='moderation_actions', to='accounts.user', verbose_name='moderator')),
                        ('target', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='moderation_log', to='accounts.user', verbose_name='player')),
                        ('report', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='log_entries', to='moderation.report', verbose_name='report')),
                        ('sanction', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='log_entries', to='moderation.sanction', verbose_name='sanction')),
                    ],
                    options={
                        'verbose_name': 'moderation log entry',
                        'verbose_name_plural': 'moderation log',
                        'db_table': 'accounts_moderationlogentry',
                        'ordering': ['-created_at', '-pk'],
                    },
                ),
                migrations.CreateModel(
                    name='Appeal',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('text', models.TextField(max_length=2000, verbose_name='appeal')),
                        ('status', models.CharField(choices=[('open', 'open'), ('granted', 'granted'), ('refused', 'refused')], default='open', max_length=10, verbose_name='status')),
                        ('decision', models.TextField(blank=True, verbose_name='decision')),
                        ('created_at', models.DateTimeField(default=django.utils.timezone.now, verbose_name='created at')),
                        ('decided_at', models.DateTimeField(blank=True, null=True, verbose_name='decided at')),
                        ('decided_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='appeals_decided', to='accounts.user', verbose_name='decided by')),
                        ('sanction', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='appeal', to='moderation.sanction', verbose_name='sanction')),
                    ],
                    options={
                        'verbose_name': 'appeal',
                        'verbose_name_plural': 'appeals',
                        'db_table': 'accounts_appeal',
                    },
                ),
                migrations.AddIndex(
                    model_name='report',
                    index=models.Index(fields=['status', 'created_at'], name='accounts_report_queue_idx'),
                ),
                migrations.AddIndex(
                    model_name='report',
                    index=models.Index(fields=['reported', 'status'], name='accounts_report_player_idx'),
                ),
                migrations.AddIndex(
                    model_name='sanction',
                    index=models.Index(fields=['user', 'kind', 'ends_at'], name='accounts_sanction_user_idx'),
                ),
                migrations.AddIndex(
                    model_name='moderationlogentry',
                    index=models.Index(fields=['target', '-created_at'], name='accounts_modlog_target_idx'),
                ),
                migrations.AddIndex(
                    model_name='moderationlogentry',
                    index=models.Index(fields=['-created_at'], name='accounts_modlog_created_idx'),
                ),
            ],
        ),
    ]
