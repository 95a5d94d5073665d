"""``python -m audit.cli``: the ``fairplay`` command."""

import sys

from audit.cli import main

sys.exit(main())
