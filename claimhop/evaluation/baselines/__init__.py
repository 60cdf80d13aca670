"""Baseline systems that need an LM, compared with claimhop in the same run."""
