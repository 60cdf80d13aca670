"""Benchmarks that print figures (run as modules, e.g. python -m benchmarks.chat_latency)."""
