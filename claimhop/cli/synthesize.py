"""`claimhop synthesize "QUESTION"`: facts for a question from several articles, read from the entity graph.

The articles are the ones named with `--title` (as the corpus spells them, case and punctuation aside), or the
question's top `--search K` documents from claimhop's own search (hybrid BM25 + dense, 10 by default).
`claimhop.retrieval.synthesis.MultiDocSynthesizer` scores their sections in the Kuzu graph that
`claimhop index --entity-graph` built, and the facts are printed grouped by article, best article first, each
with its section's relevance. Bad input exits 2 with one line on stderr (`claimhop.cli.main.main`).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path
from typing import Any

DEFAULT_SEARCH_K = 10
MAX_SEARCH_K = 100


class SynthesizeError(ValueError):
    """Bad input to `claimhop synthesize`; the message names the problem and how to fix it."""


def add_parser(sub: argparse._SubParsersAction) -> None:
    cmd = sub.add_parser("synthesize", help="facts for a question from several articles, read from the entity graph "
                         "`claimhop index --entity-graph` built")
    cmd.add_argument("question", help="the question (or claim) to gather facts for")
    cmd.add_argument("--title", "--titles", dest="titles", action="append", metavar="TITLE",
                     help="an article to read, as the corpus titles it; repeat for several")
    cmd.add_argument("--search", type=int, metavar="K",
                     help=f"read the question's top K search results instead (default {DEFAULT_SEARCH_K} when no "
                          "--title is given)")
    cmd.add_argument("--max-articles", type=int, default=5, metavar="N",
                     help="facts from at most this many articles, 1-10 (default 5)")
    cmd.add_argument("--max-sections", type=int, default=3, metavar="N",
                     help="at most this many sections per article, 1-10 (default 3)")
    cmd.add_argument("--min-relevance", type=float, default=0.7, metavar="R",
                     help="keep sections whose relevance, (1 + cosine) / 2, is at least this, 0-1 (default 0.7)")
    cmd.add_argument("--corpus", metavar="CORPUS",
                     help="JSONL corpus the graph was built from; default: the bundled HoVer corpus")
    cmd.add_argument("--index-dir", metavar="DIR",
                     help="the folder `claimhop index --index-dir` built the indexes and graph in")
    cmd.add_argument("--json", action="store_true", help="print the result as JSON")
    cmd.set_defaults(func=cmd_synthesize)


def clean_question(question: str) -> str:
    from state.context import MAX_CLAIM_CHARS
    from state.validation import clean_text

    text = clean_text(question)
    if not text:
        raise SynthesizeError("question is empty: give the question to gather facts for")
    if len(text) > MAX_CLAIM_CHARS:  # as for a claim
        raise SynthesizeError(f"question is {len(text)} characters long; the limit is {MAX_CLAIM_CHARS}")
    return text


def check_options(args: argparse.Namespace) -> None:
    if args.titles and args.search is not None:
        raise SynthesizeError("give --title TITLE (the articles to read) or --search K (the question's top K "
                              "search results), not both")
    if args.search is not None and not 1 <= args.search <= MAX_SEARCH_K:
        raise SynthesizeError(f"--search must be 1 to {MAX_SEARCH_K}, got {args.search}")
    for option, value in (("--max-articles", args.max_articles), ("--max-sections", args.max_sections)):
        if not 1 <= value <= 10:
            raise SynthesizeError(f"{option} must be 1 to 10, got {value}")
    if not 0.0 <= args.min_relevance <= 1.0:
        raise SynthesizeError(f"--min-relevance must be 0 to 1, got {args.min_relevance}")


def index_command(args: argparse.Namespace) -> str:
    """The `claimhop index` command that builds the graph this command was asked to read."""
    parts = ["claimhop index"]
    if args.corpus:
        parts.append(shlex.quote(args.corpus))
    if args.index_dir:
        parts.append(f"--index-dir {shlex.quote(args.index_dir)}")
    return " ".join([*parts, "--entity-graph"])


def open_graph(args: argparse.Namespace):
    """The corpus and a read-only connection to its entity graph, or SynthesizeError saying how to build it."""
    from claimhop.retrieval.corpus import BUNDLED_CORPUS, corpus_file
    from claimhop.retrieval.entity_graph import graph_connection, require_kuzu
    from claimhop.retrieval.index_store import index_dir_for

    require_kuzu()
    corpus = corpus_file(args.corpus or BUNDLED_CORPUS)
    folder = Path(args.index_dir).expanduser() if args.index_dir else index_dir_for(corpus)
    connection = graph_connection(folder, corpus.sha256)
    if connection is None:
        raise SynthesizeError(f"no entity graph for corpus {corpus.path} in {folder}: build it with "
                              f"`{index_command(args)}`")
    return corpus, connection


def graph_titles(connection) -> list[str]:
    """Every article's title, indexed by its id (the corpus row number)."""
    result = connection.execute("MATCH (a:Article) RETURN a.id, a.title ORDER BY a.id")
    titles: list[str] = []
    while result.has_next():
        doc_id, title = result.get_next()
        if int(doc_id) != len(titles):
            raise SynthesizeError(f"the entity graph's articles are not numbered 0..n-1 (found {doc_id}); rebuild it "
                                  "with `claimhop index --entity-graph`")
        titles.append(str(title))
    return titles


def titled_articles(titles: list[str], wanted: list[str]) -> list[int]:
    """The ids of the articles titled `wanted` (exactly, else up to case, punctuation and articles), in that
    order; SynthesizeError naming a title no article has, with the closest titles there are."""
    from claimhop.retrieval.titles import TitleIndex, normalize_title

    exact = {title: doc_id for doc_id, title in enumerate(titles)}
    index = TitleIndex(titles)
    ids: list[int] = []
    for name in wanted:
        name = " ".join(name.split())
        found = [exact[name]] if name in exact else index.exact.get(normalize_title(name), [])
        if not found:
            close = [titles[i] for i in index.lookup(name, limit=3, fuzzy_cutoff=75.0)]
            hint = f" (did you mean {', '.join(repr(t) for t in close)}?)" if close else ""
            raise SynthesizeError(f"unknown title {name!r}: no article of the corpus has it{hint}; give a title as "
                                  "the corpus spells it, or --search K to read the question's top K results")
        ids += [i for i in found if i not in ids]
    return ids


def searched_articles(question: str, k: int, args: argparse.Namespace) -> list[int]:
    """The question's top k documents from claimhop's own search (hybrid) over the graph's corpus."""
    from claimhop.retrieval.factory import search_engine

    engine = search_engine(args.corpus or None, args.index_dir or None)
    return [hit.doc_id for hit in engine.search(question, k)]


def grouped(facts: list) -> list[dict[str, Any]]:
    """Facts per article, in the synthesiser's order (best article first, its best sections first)."""
    articles: dict[int, dict[str, Any]] = {}
    for fact in facts:
        article = articles.setdefault(fact.article, {"id": fact.article, "title": fact.title,
                                                     "best_relevance": fact.relevance, "facts": []})
        article["facts"].append({"text": fact.text, "relevance": fact.relevance})
        article["best_relevance"] = max(article["best_relevance"], fact.relevance)
    return list(articles.values())


def synthesize(args: argparse.Namespace) -> dict[str, Any]:
    from claimhop.retrieval.synthesis import MultiDocSynthesizer

    question = clean_question(args.question)
    check_options(args)
    started = time.perf_counter()
    corpus, connection = open_graph(args)
    titles = graph_titles(connection)
    if args.titles:
        picked_by, candidates = "titles", titled_articles(titles, args.titles)
    else:
        k = args.search if args.search is not None else DEFAULT_SEARCH_K
        picked_by, candidates = f"search top {k}", searched_articles(question, k, args)
    synthesizer = MultiDocSynthesizer(connection, max_articles=args.max_articles, max_sections=args.max_sections,
                                      min_relevance=args.min_relevance)
    articles = grouped(synthesizer.facts(question, candidates))
    used = {article["id"] for article in articles}
    return {
        "question": question,
        "corpus": str(corpus.path),
        "picked_by": picked_by,
        "candidates": [{"id": i, "title": titles[i]} for i in candidates],
        "articles": articles,
        "no_facts_from": [titles[i] for i in candidates if i not in used],
        "settings": {"max_articles": args.max_articles, "max_sections": args.max_sections,
                     "min_relevance": args.min_relevance},
        "seconds": round(time.perf_counter() - started, 2),
    }


def render(result: dict[str, Any], out=None) -> None:
    out = out or sys.stdout
    articles, settings = result["articles"], result["settings"]
    facts = sum(len(a["facts"]) for a in articles)
    print(f"{facts} facts for {result['question']!r} from {len(articles)} of {len(result['candidates'])} articles "
          f"({result['picked_by']}):", file=out)
    for article in articles:
        print(f"\n{article['title']}  (best section {article['best_relevance']:.3f})", file=out)
        for fact in article["facts"]:
            print(f"  {fact['relevance']:.3f}  {fact['text']}", file=out)
    if result["no_facts_from"]:
        left = result["no_facts_from"]
        why = (f"no section at relevance {settings['min_relevance']} or more, or past --max-articles "
               f"{settings['max_articles']}")
        print(f"\nno facts from {len(left)} ({why}): {'; '.join(left)}", file=out)
    print(f"\n({result['seconds']} s)", file=out)


def cmd_synthesize(args: argparse.Namespace) -> int:
    result = synthesize(args)
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        render(result)
    return 0
