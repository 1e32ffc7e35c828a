"""``python -m scalarlang`` is the ``scalarlang`` command."""

import sys

from .cli import main

sys.exit(main())
