"""Helpers the tests share (no tests here): campaign watchers and oracle workers
(``campaigns``), engine oracles (``engine``), C oracles (``c_oracle``), the example
programs' headers (``c_examples``), bench scripts as modules (``bench``), X86 tests as C
(``x86_to_c``)."""
