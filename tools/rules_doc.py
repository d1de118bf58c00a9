"""Write the rule reference docs/rules.md from the rule registry (``make rules-doc``); ``--check`` exits 1 when
the file is not current."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "constructs"))

from karpenter_gpu.check.rules._reference import reference_markdown  # noqa: E402

TARGET = ROOT / "docs" / "rules.md"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="only check that docs/rules.md is current")
    args = parser.parse_args()
    text = reference_markdown()
    if args.check:
        current = TARGET.read_text(encoding="utf-8") if TARGET.exists() else ""
        if current != text:
            print(f"{TARGET.relative_to(ROOT)} is stale: run make rules-doc", file=sys.stderr)
            return 1
        return 0
    TARGET.parent.mkdir(exist_ok=True)
    TARGET.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
