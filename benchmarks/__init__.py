"""Measurements of today's product that CI, the tests or the docs' current tables run (each module's docstring
names the table it makes), and the checkout's tools the tests share with them (launch: a dev server of this
checkout). Decided experiments are in benchmarks.lab, with an index (benchmarks/lab/README.md). Part of the
checkout, never of the package."""
