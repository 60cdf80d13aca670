"""A verify-stage setting checked on real claims it was not chosen on (issue 55): the verify stage with the bundled
head, with the setting and without it, on the labelled claims of benchmarks.real_claims (each set's role "train"
claims, which no reported sample shares a document with, and any role asked for), each claim on the 21 documents
recorded for it, the claim quoted as one fact. Paired per set and pooled (exact McNemar on the claims only one
gets right); `--head`/`--against-head` compare heads instead (a head per set, trained without it). States are
read once and saved (a rerun reads no passage twice); a setting that asks the model for more (opposite_check) makes
those calls, cached by DSPy.

Table: README's and docs/evaluation.md's real-claims check of `opposite_check`
(docs/results/out-of-domain/opposite/confirm).

    python -m benchmarks.verify_setting --set opposite_check=unnamed --against opposite_check=never \\
        --roles train,sample \\
        --chosen-on healthver:sample,climate-fever:sample --out docs/results/out-of-domain/opposite/confirm
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from benchmarks.out_of_domain import LABELS, run_settings
from benchmarks.real_claims import REAL_CLAIMS, corpus_getter, paired_line, verdicts
from claimhop.atomic import write_text


def table(lines: list[dict], setting: str, baseline: str) -> list[str]:
    rows = [("| claims | n | without: macro-F1 | with: macro-F1 | contradicted recognised (without / with) | "
             "right only without / only with | exact McNemar p |"), "|---|---|---|---|---|---|---|"]
    rows += [f"| {x['set']} | {x['claims']} | {x['bundled']} | {x['travel']} | {x['contradicted_bundled']}/"
             f"{x['contradicted']} / {x['contradicted_travel']}/{x['contradicted']} | {x['only_bundled']} / "
             f"{x['only_travel']} | {x['p']:.2g} |" for x in lines]
    return [f"`{setting}` against {baseline} (the bundled head unless a head is named), real claims", "", *rows]


def head_for(pattern: str, name: str):
    """The head a run on set `name` uses: the bundled one, or the file `pattern` names (`{set}`: the set's name)."""
    from claimhop.program.verify.head import HEAD_FILE, load_head

    return load_head(Path(pattern.format(set=name)) if pattern else HEAD_FILE)


def main() -> None:
    from claimhop.evaluation.verifier_data import real_claim_items

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", action="append", required=True, metavar="NAME=VALUE", dest="settings")
    parser.add_argument("--against", action="append", default=[], metavar="NAME=VALUE",
                        help="the settings of the run compared with (default: the defaults; a setting made the "
                             "default since is given here as it was before)")
    parser.add_argument("--head", default="", metavar="FILE",
                        help="the head of the run with the settings (default: the bundled one; `{set}` in FILE: the "
                             "set's name, for a head trained without that set, as benchmarks.pair_heads writes them)")
    parser.add_argument("--against-head", default="", metavar="FILE", help="the head of the run compared with "
                        "(default: the bundled one; `{set}` as for --head)")
    parser.add_argument("--roles", default="train", help="comma-separated roles of benchmarks.real_claims")
    parser.add_argument("--sets", default="", help="only these sets (comma-separated; default: all)")
    parser.add_argument("--real-claims", default=str(REAL_CLAIMS))
    parser.add_argument("--root", default="/work/ood", help="folders made by benchmarks.claim_sets")
    parser.add_argument("--chosen-on", default="", help="SET:ROLE pairs the setting was chosen or checked on "
                        "(comma-separated): shown, left out of the pooled line")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    settings, against = run_settings(parser, args.settings), run_settings(parser, args.against)
    items = real_claim_items(Path(args.real_claims), Path(args.root), roles=tuple(args.roles.split(",")))
    wanted = set(filter(None, args.sets.split(","))) or {i["set"] for i in items}
    items = [i for i in items if i["set"] in wanted]
    corpus_of = corpus_getter()
    setting = " ".join(f"{k}={v}" for k, v in settings.items()) + (f" head={args.head}" if args.head else "")
    baseline = (" ".join(f"{k}={v}" for k, v in against.items()) or "the defaults") + (
        f" head={args.against_head}" if args.against_head else "")
    lines, rows, gold_all, without_all, with_all = [], [], {}, {}, {}
    for name, role in sorted({(i["set"], i["role"]) for i in items}):
        chosen = [i for i in items if (i["set"], i["role"]) == (name, role)]
        gold = {i["uid"]: i["label"] for i in chosen}
        without = verdicts(head_for(args.against_head, name), chosen, corpus_of, settings=against,
                           desc=f"{name} {role}: {baseline}")
        with_setting = verdicts(head_for(args.head, name), chosen, corpus_of, settings=settings,
                                desc=f"{name} {role}: {setting}")
        labels = tuple(label for label in LABELS if label in gold.values())
        lines.append(paired_line(f"{name} ({role})", gold, without, with_setting, labels))
        rows += [{"set": name, "role": role, "uid": u, "label": gold[u], "without": without[u], "with": with_setting[u]}
                 for u in sorted(gold)]
        if f"{name}:{role}" not in args.chosen_on.split(","):
            gold_all.update(gold), without_all.update(without), with_all.update(with_setting)
    pooled = paired_line("pooled, not chosen on", gold_all, without_all, with_all, LABELS)
    lines.append({**pooled, "bundled": "", "travel": ""})  # a macro-F1 over sets of different labels means nothing
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    text = table(lines, setting, baseline)
    write_text(out / "paired.md", "\n".join(text) + "\n")
    write_text(out / "paired.json", json.dumps({"settings": settings, "against": against, "roles": args.roles, "lines": lines}, indent=1)
               + "\n")
    write_text(out / "verdicts.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
    print("\n".join(text))


if __name__ == "__main__":
    main()
