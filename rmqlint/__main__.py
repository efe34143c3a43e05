"""`python -m rmqlint`: the same as the `rmqlint` command."""

import sys

from rmqlint.cli import main

sys.exit(main())
