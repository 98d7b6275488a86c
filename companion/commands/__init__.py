"""The ``coffee-companion`` command: cli.py parses it, one module per sub-command runs it
(label_sheets.py: the QR sticker sheets the `labels` command prints).
The top of the tree: nothing imports a command (but ``python -m companion``).
May import every room.
"""
