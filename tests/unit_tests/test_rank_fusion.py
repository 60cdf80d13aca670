"""The rank-fusion replay of issue 70 (benchmarks.lab.rank_fusion): the fused order and the grouped cross-validation,
on hand-made rankings."""

from benchmarks.lab.first_five import Claim
from benchmarks.lab.rank_fusion import Rule, Sample, cross_validate, documents_once, fused


def test_fusion_moves_the_claim_searchs_first_result_up_by_its_weight():
    kept = ["Mars", "Mars (2)", "Martian", "Extraterrestrial atmosphere", "Hop"]  # selection order
    ranking = ["Extraterrestrial atmosphere", "Martian", "Mars"]  # the claim search's; "Hop" came from a hop
    assert fused(kept, ranking, 0.0, 60) == kept
    assert fused(kept, ranking, 1.0, 60) == ["Extraterrestrial atmosphere", "Martian", "Mars", "Mars (2)", "Hop"]
    # w 0.3, k 1: the claim search's first (4th in selection) 0.3/2 + 0.7/5 beats "Mars (2)", 0.7/3, and "Martian",
    # 0.3/3 + 0.7/4; selection's first stays first
    assert fused(kept, ranking, 0.3, 1) == ["Mars", "Extraterrestrial atmosphere", "Martian", "Mars (2)", "Hop"]


def test_documents_once_counts_a_passage_by_its_file():
    order = ["Mars", "Mars (2)", "Martian", "Extraterrestrial atmosphere"]
    files = {"Mars": "mars.md", "Mars (2)": "mars.md", "Martian": "martian.md"}
    assert documents_once(order, files) == ["Mars", "Martian", "Extraterrestrial atmosphere", "Mars (2)"]


def test_every_claim_is_held_out_once_and_a_group_stays_in_one_fold():
    # 20 claims in 10 groups of 2; the rule "lead" gains every claim of the even groups and loses none, so it is chosen
    # in every fold, and held out it gains each of them once: 10 claims, never one counted twice or never
    claims = [Claim(f"c{i}", "", ["Gold"], group=f"g{i // 2}") for i in range(20)]
    sample = Sample("toy", claims, {}, {}, {}, set(), {}, lambda titles, gold, k: False)
    lead = Rule(lead=1)
    gains = {c.uid: int(c.group[1:]) % 2 == 0 for c in claims}
    table = {("toy", Rule()): {5: dict.fromkeys(gains, False), 21: dict.fromkeys(gains, False)},
             ("toy", lead): {5: gains, 21: dict.fromkeys(gains, False)}}
    chosen, held = cross_validate([sample], table, [Rule(), lead], seed=0)
    assert chosen == [lead] * 5
    assert held["toy"] == [10, 0, 0, 0]
    # a rule that gains only on one group is never chosen on the folds that hold that group out
    one = {c.uid: c.group == "g0" for c in claims}
    table[("toy", lead)] = {5: one, 21: dict.fromkeys(one, False)}
    chosen, held = cross_validate([sample], table, [Rule(), lead], seed=0)
    assert held["toy"] == [0, 0, 0, 0] and chosen.count(Rule()) == 1
