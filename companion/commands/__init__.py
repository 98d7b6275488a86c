"""The ``coffee-companion`` command: cli.py parses it, one module per sub-command runs it.
The top of the tree: nothing imports a command (but ``python -m companion``).
May import every room.
"""
