"""The recall metric on hand-made cases, including normalisation and a missing gold title."""

from claimhop.evaluation.metric import all_gold_in, evidence_in, label_of, of_document, retrieval_metrics

GOLD = ["The Runaways", "Steve Augeri", "Foxes (soundtrack)"]


def test_titles_that_differ_only_in_case_punctuation_or_article_count():
    retrieved = ["runaways", "STEVE AUGERI", "Foxes soundtrack"]
    assert all_gold_in(retrieved, GOLD)


def test_title_before_pipe_is_used():
    retrieved = ["The Runaways | a band", "Steve Augeri | a singer", "Foxes (soundtrack) | an album"]
    assert all_gold_in(retrieved, GOLD)


def test_a_missing_gold_title_scores_zero_with_partial_credit():
    metrics = retrieval_metrics(["The Runaways", "Steve Augeri", "Cherie Currie"], GOLD)
    assert metrics["recall@21"] == 0.0
    assert abs(metrics["gold_fraction@21"] - 2 / 3) < 1e-9


def test_gold_beyond_rank_21_does_not_count():
    retrieved = [f"filler {i}" for i in range(21)] + GOLD + [f"more {i}" for i in range(30)]
    assert not all_gold_in(retrieved, GOLD)
    metrics = retrieval_metrics(retrieved, GOLD)
    assert metrics["recall@50"] == 1.0 and metrics["recall@21"] == 0.0


def test_recall_at_k_only_where_the_system_returned_k():
    metrics = retrieval_metrics(GOLD, GOLD)
    assert metrics["recall@5"] is None and metrics["recall@21"] == 1.0


def test_verdict_mapping():
    assert label_of("SUPPORTED") == "SUPPORTED"
    assert label_of("CONTRADICTED") == label_of("INSUFFICIENT_INFO") == "NOT_SUPPORTED"


def test_report_table_and_plot_for_perfect_and_zero_recall(tmp_path):
    from claimhop.evaluation.report import plot, render_table, summarize, wilson

    rows = [{"system": s, "uid": str(i), "num_hops": 2 + i % 2, "label": "SUPPORTED", "recall@21": r,
             "gold_fraction@21": r, "recall@5": None, "recall@10": None, "recall@50": None}
            for i in range(4) for s, r in (("bm25", 0.0), ("claimhop", 1.0))]
    summary = summarize(rows)
    assert summary["claimhop"]["groups"]["all"]["n"] == 4
    low, high = wilson(4, 4)
    assert 0.4 < low < 1.0 and high == 1.0
    assert "| claimhop | 1.000 (4," in render_table(summary)
    assert plot(summary, tmp_path / "p.png").stat().st_size > 1000


def test_paired_comparison_counts_the_claims_only_one_system_gets_and_gives_the_exact_mcnemar_p():
    from claimhop.evaluation.report import mcnemar_exact, recall_comparison

    found = {"claimhop": {0, 1, 2, 3, 4, 5}, "bm25": {0, 6}}
    rows = [{"system": s, "uid": str(i), "recall@21": float(i in found[s])} for s in found for i in range(8)]
    assert recall_comparison(rows) == [
        "claimhop vs bm25 on the same 8 claims: all gold titles found only for claimhop 5, only for bm25 1 "
        "(exact McNemar p = 0.219)"]  # 2 x (C(6,0) + C(6,1)) / 2^6
    assert mcnemar_exact(0, 5) == 0.0625 and mcnemar_exact(3, 3) == 1.0 and mcnemar_exact(0, 0) == 1.0
    assert recall_comparison([r for r in rows if r["system"] == "bm25"]) == []  # nothing to compare against


def test_evidence_counted_by_document_takes_any_passage_of_a_long_document():
    # Climate-FEVER's claim 1592: a long article's later parts ranked first, the passage titled as the article 8th
    gold = ["Scientific consensus on climate change"]
    ranked = ["Scientific consensus on climate change (17)", "Scientific consensus on climate change (19)",
              "Intergovernmental Panel on Climate Change (2)", "Climate change denial (10)", "21st century",
              "Global warming", "Sea level rise", "Scientific consensus on climate change"]
    assert not evidence_in(ranked, gold, 5)  # as the committed tables count it
    assert evidence_in(ranked, gold, 5, "document") and evidence_in(ranked, gold, 8)
    assert of_document("Report > Findings (2)", "Report") and of_document("Report", "Report")
    # another article whose title begins with the name, or a longer name, is not part of the document
    assert not of_document("Foxes (soundtrack)", "Foxes") and not of_document("Foxes of Kent", "Foxes")
    assert not evidence_in(["Foxes (soundtrack)", "Reporter"], ["Foxes", "Report"], 2, "document")
