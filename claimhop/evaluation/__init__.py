"""Recall@21 on HoVer claims, measured the way DSPy's langProBe HoVer benchmark does, against baselines."""
