import sys

from companion.commands.cli import main

sys.exit(main())
