"""claimhop: a LangGraph agent that hops across a document collection to gather the documents a claim depends
on, verifies it and answers with citations.

The graph's design lives in the top-level packages `graph` (wiring), `nodes` (one node per module) and `state`
(typed state, schemas, run settings, the node table); everything else is here: `claimhop.retrieval`, `claimhop.lm`,
`claimhop.entities`, `claimhop.program` (the DSPy program: one folder or module per stage, each `forward` the
stage's whole algorithm), `claimhop.evaluation`, `claimhop.cli`, `claimhop.server` and `claimhop.data` (the bundled
corpus). Imports go down only: `state` at the bottom, then claimhop's packages, `nodes`, `graph`, and above the
graph only `claimhop.cli`, the console commands (tests/unit_tests/test_house.py)."""

__version__ = "0.1.0"
