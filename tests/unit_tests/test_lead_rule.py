"""The signal-conditioned claim lead of issue 70 (benchmarks.lab.lead_rule), on hand-made rankings."""

from benchmarks.lab.first_five import Claim
from benchmarks.lab.lead_rule import LeadRule, held_out, lead_of, signals
from benchmarks.lab.rank_fusion import Rule, Sample, cross_validate


def test_signals_and_the_lead_they_give():
    claim = Claim("c", "Galileo got outvoted, said Rick Perry.", ["2006 Texas gubernatorial election"],
                  entities=["Rick Perry", "Galileo"])
    kept = ["Rick Perry", "Galileo affair", "Hop", "2006 Texas gubernatorial election"]  # selection order
    ranking = ["Rick Perry", "2006 Texas gubernatorial election", "Galileo affair"]  # the claim search's
    value = signals(claim, kept, ranking, {}, [False, False, True, False])
    assert value["named kept"] == 1 and value["named in search 5"] == 1  # "Galileo affair" is not "Galileo"
    assert value["hop-only in first 5"] == 1 and value["shared first 5"] == 3 and value["search's first named"] == 1
    assert value["chained in first 5"] == 1 and value["chained in first 3"] == 1 and value["through named"] == 1
    unchained = LeadRule("chained in first 5", True, 0, 3)
    assert lead_of(unchained, value) == 1
    assert lead_of(unchained, {**value, "chained in first 5": 0}) == 3


def test_held_out_counts_each_claim_under_the_rule_cross_validate_chose_for_its_fold():
    claims = [Claim(f"c{i}", "", ["Gold"], group=f"g{i // 2}") for i in range(20)]
    sample = Sample("toy", claims, {}, {}, {}, set(), {}, lambda titles, gold, k: False)
    lead = Rule(lead=1)
    gains = {c.uid: c.group in {"g0", "g2", "g4"} for c in claims}
    table = {("toy", Rule()): {5: dict.fromkeys(gains, False), 21: dict.fromkeys(gains, False)},
             ("toy", lead): {5: gains, 21: dict.fromkeys(gains, False)}}
    for seed in (0, 1):
        chosen, held = cross_validate([sample], table, [Rule(), lead], seed)
        again, rule_of = held_out([sample], table, [Rule(), lead], seed)
        assert again == chosen
        assert sum(table["toy", rule_of["toy", c.uid]][5][c.uid] for c in claims) == held["toy"][0]
