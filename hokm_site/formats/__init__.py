"""Date and number formats where Django's own are missing or not how the readers write them
(settings.FORMAT_MODULE_PATH): a module defines only what it changes, the rest is Django's."""
