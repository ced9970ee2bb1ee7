#!/usr/bin/env python3
"""Mutation testing of the graders (maintainers): see tools/wbtools/mutate.py.

    python3 tools/mutate.py --chapter 2 [--stage 4] [--operators compare,barrier] [--backend cpu] [--list]
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from wbtools import mutate  # noqa: E402

if __name__ == "__main__":
    sys.exit(mutate.main(sys.argv[1:]))
