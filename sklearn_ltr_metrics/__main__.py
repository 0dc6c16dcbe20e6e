"""``python -m sklearn_ltr_metrics`` runs the ``ltr-eval`` command line."""

import sys

from ._cli import main

if __name__ == "__main__":
    sys.exit(main())
