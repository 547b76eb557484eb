"""The top floor: herd's world and the command line, in rooms that import downwards only.

``formats`` (herd's and GenMC's texts: blocks, logs, pictures' files) < ``pipeline`` (a
test file to a typed record: ``load_program``, the model, limits) < ``analyses``
(``explain``, ``diff``, ``fences``, the TSO_k proofs) < ``campaigns`` (many tests: the
journal, worker pools, dask) < ``cli`` (the ``herdsman`` command line).
"""
