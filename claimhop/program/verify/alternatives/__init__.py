"""The verifiers a setting can pick instead of the passage verifier: facts (verify_facts.py: each fact judged on
its evidence sentences), qa (verify_qa.py: a question per fact) and single (verify_single.py: one call), with the
parts only they use."""
