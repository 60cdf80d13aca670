"""Decided experiments: each module answered one question about claimhop; README.md here lists the question, the
answer, the result page and the commit that ran it. Kept runnable (python -m benchmarks.lab.NAME --help), not
maintained: the product may have moved on since."""
