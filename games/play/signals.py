"""What the games app tells the layers above it, which it never imports (docs/architecture.md)."""

from django.dispatch import Signal

#: Sent once a finished match's last change has committed, with ``match_id``. Moderation gives
#: the match's quitters their play bans (issue 6) from its receiver.
match_finished = Signal()
