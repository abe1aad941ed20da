"""``python -m attnge`` is the ``attnge`` command."""

import sys

from attnge.cli import main

sys.exit(main())
