"""Message catalogs of the touchscreen, one TOML file per language (see ``words/i18n.py``)."""
