"""Message catalogs of the touchscreen, one TOML file per language (see ``ui/i18n.py``)."""
