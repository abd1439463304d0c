"""`python -m provgraph.cli`: the same as the `provgraph` command."""

import sys

from provgraph.cli.main import main

sys.exit(main())
