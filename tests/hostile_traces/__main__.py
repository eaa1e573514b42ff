"""Write the hostile trace corpus to a folder: python -m tests.hostile_traces [folder]."""

import sys
from pathlib import Path

from tests.hostile_traces import write

for path in write(Path(sys.argv[1] if len(sys.argv) > 1 else "hostile-traces")).values():
    print(f"{path}  {path.stat().st_size:,} bytes")
