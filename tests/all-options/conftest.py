"""The all-options builds (`make check-options`): not part of `make check`,
whose time they would double (one build is 3-5 min on a quiet 2-core
machine).  The scripts are on sys.path as in tests/scripts."""

import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "scripts"))
