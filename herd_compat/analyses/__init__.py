"""The analyses built on the engines: why a model forbids a state (``explain``), where two
models differ on one test (``diff``), the fewest fences that make a program safe
(``fences``), and proofs for every store-buffer size (``bounds``)."""
