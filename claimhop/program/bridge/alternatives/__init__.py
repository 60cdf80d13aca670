"""The bridge a setting can pick instead of the ranking's: bridge_pick=lm (lm_pick.py)."""
