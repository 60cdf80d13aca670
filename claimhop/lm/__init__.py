"""The language models: the local llama.cpp engine, served models, their use ledger and timeouts.

xllamacpp's native library is loaded with the package: loaded after Kuzu's (the entity graph's), it aborts the
process (`std::bad_alloc`); the entity graph loads it before Kuzu for the same reason
(tests/unit_tests/test_native_load_order.py)."""

import xllamacpp  # noqa: F401 - loaded first on purpose (see above)
