"""Stage 3, the bridge (nodes `extract_entities` and `bridge`), whole in this folder: the names the found documents
give that no search has covered, ranked (ranking.py); the best looked up and the best documents' links followed
(stage.py, links.py); with bridge_pick=lm the model picks among the names too (alternatives/lm_pick.py)."""
