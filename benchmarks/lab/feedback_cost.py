"""What does `claim_feedback=20` add to the claim's first search (search_claim, the first documents a user sees)?

The claim search (claimhop.program.search.stage.Search.first_look) timed with and without feedback, claim by claim,
the two arms alternating so the machine's slower moments fall on both; no model call (the search only). Prints
the median milliseconds of each arm and their ratio per set.

    python -m benchmarks.lab.feedback_cost --root /work/ood --sets hover-dev,healthver,climate-fever --repeat 3
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> None:
    from benchmarks.every_set import eval_sets
    from claimhop.evaluation.data import load_claims
    from claimhop.program import stages_for
    from state.context import Context

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=Path("/work/ood"))
    parser.add_argument("--sets", default="hover-dev,healthver,climate-fever")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    print("| set (claims) | claim search without feedback, median ms | with claim_feedback=20 | ratio |")
    print("|---|---|---|---|")
    for item in eval_sets(args.root):
        if item.name not in args.sets.split(","):
            continue
        arms = {name: stages_for(Context(corpus_path=item.corpus or "", claim_feedback=value, unnamed_floor=21)).search
                for name, value in (("plain", 0), ("feedback", 20))}
        claims = [c["claim"] for c in load_claims(Path(item.claims))]
        for search in arms.values():  # indexes and the encoder loaded before any timing
            search.first_look(claims[0])
        times: dict[str, list[float]] = {name: [] for name in arms}
        for _ in range(args.repeat):
            for claim in claims:
                for name, search in arms.items():
                    start = time.perf_counter()
                    search.first_look(claim)
                    times[name].append(1000 * (time.perf_counter() - start))
        plain, fed = statistics.median(times["plain"]), statistics.median(times["feedback"])
        print(f"| {item.name} ({len(claims)}) | {plain:.1f} | {fed:.1f} | {fed / plain:.2f}x |")


if __name__ == "__main__":
    main()
