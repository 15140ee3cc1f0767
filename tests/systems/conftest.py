from __future__ import annotations

import sys
from pathlib import Path

# The broken test systems (broken_systems.py) and user-class fixtures import from here.
sys.path.insert(0, str(Path(__file__).parent))
