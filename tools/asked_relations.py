"""Count the relations of WebQSP's and GrailQA's logical forms into
extension/core/asked_relations.tsv (relation ids and counts only: no text of the
datasets), the prior the seed sampler and the extension engine draw relations by.

    KGBENCH_EXTERNAL_DATA=/path/to/external python tools/asked_relations.py
    python tools/asked_relations.py --webqsp A.json B.json --grailqa C.json --out FILE
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from extension.core.asked_relations import (  # noqa: E402
    ASKED_RESOURCE,
    format_table,
    read_datasets,
)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ext = Path(os.environ.get("KGBENCH_EXTERNAL_DATA", ""))
    ap.add_argument("--webqsp", nargs="*", type=Path,
                    default=[ext / "webqsp" / f"WebQSP.{s}.json" for s in ("train", "test")])
    ap.add_argument("--grailqa", nargs="*", type=Path,
                    default=[ext / "grailqa" / "ToG_graliqa_1000.json"])
    ap.add_argument("--out", type=Path, default=REPO / "extension" / "core" / ASKED_RESOURCE)
    args = ap.parse_args(argv)
    for f in (*args.webqsp, *args.grailqa):
        if not f.is_file():
            raise SystemExit(f"asked_relations: {f} is not a file (set KGBENCH_EXTERNAL_DATA "
                             "or pass --webqsp/--grailqa)")
    counts = read_datasets(args.webqsp, args.grailqa)
    sources = ", ".join(f.name for f in (*args.webqsp, *args.grailqa))
    args.out.write_text(format_table(counts, sources), "utf-8")
    print(f"{len(counts)} relations, {sum(counts.values())} uses -> {args.out}")


if __name__ == "__main__":
    main()
