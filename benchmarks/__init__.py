"""Benchmarks that print figures (run as modules, e.g. python -m benchmarks.chat_latency), and the checkout's tools
the tests share with them (launch: a dev server of this checkout). Part of the checkout, never of the package."""
