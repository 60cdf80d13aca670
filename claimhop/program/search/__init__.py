"""Stage 2, the search (nodes `search_claim` and `dual_retrieval`), in stage.py: the claim's own search and the
plan's queries, as candidates with the step that found them."""
