"""``python -m derivations`` is the ``attnge`` command."""

import sys

from derivations.cli import main

sys.exit(main())
