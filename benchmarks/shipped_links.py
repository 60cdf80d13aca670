"""Makes claimhop/data/corpus.links.npz, the bundled corpus's link table (which article names which), shipped because
it is the same on every machine and takes ~40 s to compute on 2 cores; or, with --check, computes it again and says
whether the shipped file still matches the code that makes it.

Table: none; it makes a shipped data file (the integration test runs --check).

    python -m benchmarks.shipped_links [--check]
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from claimhop.retrieval.article_links import (
    SHIPPED_LINKS,
    ArticleLinks,
    build_links,
    save_links,
)
from claimhop.retrieval.corpus import load_corpus


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the shipped file instead of writing it")
    args = parser.parse_args()
    corpus = load_corpus()
    started = time.perf_counter()
    links = ArticleLinks.from_lists(build_links(corpus.titles, corpus.texts), corpus.sha256)
    print(f"{len(links.targets)} links among {len(corpus.titles)} articles in {time.perf_counter() - started:.0f} s")
    if args.check:
        shipped = ArticleLinks.load(SHIPPED_LINKS)
        same = shipped is not None and shipped.corpus_sha256 == corpus.sha256 and np.array_equal(
            shipped.offsets, links.offsets) and np.array_equal(shipped.targets, links.targets)
        print(f"{SHIPPED_LINKS}: {'the same' if same else 'DIFFERENT: run without --check to remake it'}")
        return 0 if same else 1
    save_links(links, SHIPPED_LINKS)
    print(f"written: {SHIPPED_LINKS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
