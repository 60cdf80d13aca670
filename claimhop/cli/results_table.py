"""`claimhop results-table [--check]`: README's Results table from the committed result rows
(claimhop.evaluation.readme_results). Without `--check` it rewrites the table between README's markers; with
`--check` it changes nothing and exits 1, naming each row that differs, when README disagrees with the rows.
Both are a checkout's files: the checkout holding the current folder, or the one `--root` names."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_parser(sub: argparse._SubParsersAction) -> None:
    cmd = sub.add_parser("results-table", help="regenerate README's Results table from the committed rows in "
                         "docs/results (--check: exit 1, naming the rows, when README disagrees)")
    cmd.add_argument("--check", action="store_true", help="change nothing; exit 1 and name the differing rows "
                     "when README's table is not what the committed rows give")
    cmd.add_argument("--root", metavar="DIR", help="the claimhop checkout (a clone of the repository) whose "
                     "docs/results the rows come from (default: the checkout holding the current folder)")
    cmd.add_argument("--readme", metavar="PATH", help="the README to write or check (default: the checkout's README.md)")
    cmd.set_defaults(func=cmd_results_table)


def cmd_results_table(args: argparse.Namespace) -> int:
    from claimhop.evaluation import readme_results

    root = readme_results.checkout(Path(args.root)) if args.root else readme_results.find_checkout(Path.cwd())
    readme = Path(args.readme) if args.readme else root / readme_results.README
    if not readme.is_file():
        raise FileNotFoundError(f"--readme {readme}: no such file")
    if args.check:
        found = readme_results.differences(readme, root)
        if found:
            print(f"{readme}: the Results table is not what the committed rows give "
                  "(run `claimhop results-table` to regenerate it):", file=sys.stderr)
            for line in found:
                print(f"  {line}", file=sys.stderr)
            return 1
        print(f"{readme}: the Results table matches the committed rows")
        return 0
    changed = readme_results.write(readme, root)
    print(f"{readme}: Results table {'regenerated' if changed else 'already up to date'}")
    return 0
