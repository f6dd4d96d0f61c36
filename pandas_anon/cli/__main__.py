"""``python -m pandas_anon.cli``: the command line."""

import sys

from pandas_anon.cli.main import main

sys.exit(main())
