"""The moderators group and its permissions (accounts/roles.py)."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

# Frozen here rather than imported from accounts.roles: a migration must keep doing what it did
# when it was written, whatever the module says later.
MODERATORS_GROUP = "moderators"
PERMISSIONS = {
    "games": {
        "table": ("view",),
        "seat": ("view",),
        "match": ("view",),
        "matchseat": ("view",),
        "hand": ("view",),
        "trick": ("view",),
        "cardplay": ("view",),
        "chatmessage": ("view",),
        "matchevent": ("view",),
        "matchconnection": ("view",),
    },
    "accounts": {"user": ("view", "change")},
}


def create_moderators_group(apps, schema_editor):
    # Permissions are normally made after all migrations have run (post_migrate); on a fresh
    # database they do not exist yet, so make them now.
    for app_label in PERMISSIONS:
        app_config = apps.get_app_config(app_label)
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None

    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _ = Group.objects.get_or_create(name=MODERATORS_GROUP)
    permissions = [
        Permission.objects.get(
            content_type__app_label=app_label,
            content_type__model=model,
            codename=f"{action}_{model}",
        )
        for app_label, models in PERMISSIONS.items()
        for model, actions in models.items()
        for action in actions
    ]
    group.permissions.set(permissions)


def delete_moderators_group(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name=MODERATORS_GROUP).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0002_api_token"),
        ("games", "0004_clocks_presence_events"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.RunPython(create_moderators_group, delete_moderators_group),
    ]
