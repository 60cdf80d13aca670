"""Stage 1, the plan (nodes `decompose` and `early_gap`), whole in this folder: by default (planner=facts,
stage.py) one call splits the claim into facts and the names to look up; the other planners: alternatives/."""
