"""The language models: the local llama.cpp engine, served models, their use ledger and timeouts.

xllamacpp's native library is loaded with the package, before the many other native libraries a process gathers:
loaded for the first time late in a long-lived process (after the whole unit test suite), its import aborted the
process with no message."""

import xllamacpp  # noqa: F401 - loaded first on purpose (see above)
