"""Stage 6, the verdict (node `verify`), whole in this folder. The default (verifier=passages, stage.py): the
model reads the claim with the best passages in one pass (reading.py), a learned head decides (head.py), each fact
of the claim (facts.py) is quoted from what was read (quotes.py, direction.py); a claim no selected document names
gets INSUFFICIENT_INFO with no model call (coverage.py). The other verifiers and their parts: alternatives/."""
