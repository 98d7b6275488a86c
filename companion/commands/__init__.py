"""One module per ``coffee-companion`` sub-command (see ``companion.cli.COMMANDS``)."""
