"""The planners a setting can pick instead: one_call (one_call.py) and two_calls (two_calls.py)."""
