"""``python -m seprank``: the same as the ``seprank`` command."""

import sys

from seprank.cli import main

if __name__ == "__main__":
    sys.exit(main())
