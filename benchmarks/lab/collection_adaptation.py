"""Fitting the bundled head to a user's collection with no label of it (issue 55, item 2), two ways, measured on
real claims of that collection the heads never saw:

- `retrained`: the bundled head's training data plus the claims `claimhop train-verifier --corpus FOLDER` made from
  the collection's own documents, read the bundled way (chain-order-1, 21 blocks, 3,000 characters), both heads
  refitted as `claimhop train-verifier` fits them;
- `thresholds`: the bundled head unchanged but for its two thresholds (P(supported) for SUPPORTED, P(contradicted |
  not supported) for CONTRADICTED), chosen on a grid for the best 3-class macro-F1 on those made claims.

Each set's reported sample (benchmarks.real_claims role "sample") is judged by the verify stage with the bundled
head and with each adapted one (benchmarks.lab.travel_head: saved states, the claim quoted as one fact); exact McNemar on
the claims only one gets right. The made claims must exist (`claimhop train-verifier --corpus FOLDER` makes them in
the collection's index folder); reading them the bundled way is one model pass each (~15 s here), kept and resumable.

    python -m benchmarks.lab.collection_adaptation --sets climate-fever,healthver --root /work/ood
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from benchmarks.out_of_domain import LABELS, macro_f1
from benchmarks.real_claims import REAL_CLAIMS, paired_line, verdicts
from claimhop.atomic import write_text

GRID = np.round(np.arange(0.05, 0.96, 0.05), 2)  # thresholds tried, 0.05 apart (the made claims are ~120)


def fitted_thresholds(probabilities: list[dict[str, float]], kinds: list[str]) -> tuple[float, float, float]:
    """The support and kind thresholds with the best 3-class macro-F1 on the made claims (ties: nearest 0.5, the
    bundled head's), and that macro-F1."""
    best: tuple = ()
    for support in GRID:
        for kind in GRID:
            said = ["SUPPORTED" if p["supported"] >= support else
                    "CONTRADICTED" if p["contradicted_if_not"] >= kind else "INSUFFICIENT_INFO" for p in probabilities]
            score = macro_f1(list(zip(kinds, said)), LABELS)
            key = (round(score, 6), -abs(support - 0.5) - abs(kind - 0.5))
            if not best or key > best[0]:
                best = (key, float(support), float(kind), score)
    return best[1], best[2], best[3]


def thresholds_head(support: float, kind: float, out: Path, collection: Path) -> Path:
    """A copy of the bundled head deciding at these thresholds (the kind threshold folded into its bias)."""
    from claimhop.program.verify.head import HEAD_FILE, PROVENANCE_FILE, save_head

    with np.load(HEAD_FILE) as data:
        arrays = {name: data[name] for name in data.files}
    arrays["threshold"] = np.array(support)
    arrays["kind_bias"] = np.array(float(arrays["kind_bias"]) - np.log(kind / (1 - kind)))
    provenance = json.loads(PROVENANCE_FILE.read_text(encoding="utf-8"))
    provenance["thresholds_fitted"] = {"collection": str(collection), "support": support, "kind": kind,
                                       "on": "the claims made from its own documents",
                                       "by": "benchmarks.lab.collection_adaptation"}
    save_head(arrays, provenance, out, out.with_suffix(".json"))
    return out


def main() -> None:
    from claimhop.evaluation.synthetic_chains import CHAIN_CLAIMS
    from claimhop.evaluation.train_verifier import (
        SYNTHETIC_CLAIMS,
        folder_corpus,
        train_verifier,
    )
    from claimhop.evaluation.verifier_data import (
        DEV_RETRIEVED,
        SYNTHETIC_RETRIEVED,
        collection_claim_items,
        real_claim_items,
    )
    from claimhop.evaluation.verifier_features import extract_features, load_features
    from claimhop.program.verify.head import HEAD_FILE, load_head
    from claimhop.program.verify.reading import reading_rule

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", required=True, help="comma-separated set folders under --root")
    parser.add_argument("--root", required=True, help="the sets' folders (claims.jsonl, documents/)")
    parser.add_argument("--real-claims", default=str(REAL_CLAIMS))
    parser.add_argument("--heads", default=str(Path.home() / ".cache/claimhop/adapted-heads"),
                        help="where the adapted heads are written")
    parser.add_argument("--out", default="docs/results/out-of-domain/collection-adaptation")
    args = parser.parse_args()
    rule, bundled = reading_rule(), load_head(HEAD_FILE)
    heads, out = Path(args.heads), Path(args.out)
    samples = real_claim_items(Path(args.real_claims), Path(args.root), roles=("sample",))
    lines = []
    for name in filter(None, args.sets.split(",")):
        source = Path(args.root) / name / "documents"
        corpus = folder_corpus(str(source))
        made = collection_claim_items(source)
        extract_features(made, corpus, rule=rule, desc=f"{name}: made claims, read the bundled way")
        retrained = heads / f"retrained-{name}.npz"
        train_verifier(SYNTHETIC_CLAIMS, DEV_RETRIEVED, retrained, retrained.with_suffix(".json"),
                       chains_path=CHAIN_CLAIMS, retrieved_synthetic=SYNTHETIC_RETRIEVED, collections=(source,))
        probabilities = [bundled.probabilities(state) for state in load_features(made, corpus, rule)]
        support, kind, on_made = fitted_thresholds(probabilities, [item["kind"] for item in made])
        fitted = thresholds_head(support, kind, heads / f"thresholds-{name}.npz", source)
        items = [item for item in samples if item["set"] == name]
        gold = {item["uid"]: item["label"] for item in items}
        said = verdicts(bundled, items, lambda item: corpus)
        for way, head in (("retrained", retrained), ("thresholds", fitted)):
            line = paired_line(name, gold, said, verdicts(load_head(head), items, lambda item: corpus), LABELS)
            line.update(way=way, made_claims=len(made), **({"support_threshold": support, "kind_threshold": kind,
                                                            "made_claims_macro_f1": round(on_made, 1)}
                                                           if way == "thresholds" else {}))
            lines.append(line)
    table = ["| set | adapted how | bundled macro-F1 | adapted macro-F1 | contradicted recognised (bundled / adapted) "
             "| right only bundled / only adapted | exact McNemar p |", "|---|---|---|---|---|---|---|"]
    table += [f"| {x['set']} | {x['way']} | {x['bundled']} | {x['travel']} | {x['contradicted_bundled']}/"
              f"{x['contradicted']} / {x['contradicted_travel']}/{x['contradicted']} | {x['only_bundled']} / "
              f"{x['only_travel']} | {x['p']:.2g} |" for x in lines]
    out.mkdir(parents=True, exist_ok=True)
    write_text(out / "paired.md", "\n".join(table) + "\n")
    write_text(out / "paired.json", json.dumps(lines, indent=1) + "\n")
    print("\n".join(table))


if __name__ == "__main__":
    main()
