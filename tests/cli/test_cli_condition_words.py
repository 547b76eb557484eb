"""herd's rule for a condition's constants (``herd/constraints.ml``): ``loc = k`` masks the
location's final value and ``k`` to the bits of the location's type (an ``int``, 32 bits,
when undeclared; the declared type otherwise) and compares the two; ``loc = loc'``
compares the values as they are.  The tests of ``tests/data/aarch64/words`` and herd7
7.57's blocks for them (``.expected``, without ``Time``):

- ``W1``: ``LDR X0`` of ``0x1fffffffe`` into a register of no declared type satisfies
  ``0:X0=-2`` (its low word), ``W3`` satisfies ``0:X0=0x1fffffffe`` too;
- ``W2``: the same register declared ``int64_t``: compared on 64 bits, ``-2`` fails;
- ``W4``: an ``int64_t`` location: ``x=-2`` fails;
- ``W5`` (PPC): a 64-bit initial register moved, a ``uint32_t`` location loaded with
  ``ld`` and the location itself;
- ``W6``: a ``uint64_t`` location read into an untyped and an ``int8_t`` register
  (``0:X3=0x101`` holds on 8 bits), and a negated atom on the location;
- ``W7`` (PPC), ``W8``: herd's initial writes hold a value's low bits of the location's
  size (an ``int``'s 32 when undeclared), zero-extended: ``int x = -1`` is loaded as
  ``4294967295`` by ``lwz``, ``ld``, ``LDR X`` and ``LDR W``, as ``-1`` by ``lwa``/``lwax``
  (sign-extending); an ``int64_t`` location keeps ``-1``; an ``int8_t`` ``-1`` is ``255``.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from herdsman.herd_compat.cli.herd7opts import parse_herd7_args
from herdsman.herd_compat.cli.run import run_tests

DATA = Path(__file__).resolve().parents[1] / "data" / "aarch64" / "words"


@pytest.mark.parametrize("name", ["W1", "W2", "W3", "W4", "W5", "W6", "W7", "W8"])
def test_blocks_are_herds(name: str) -> None:
    out, err = io.StringIO(), io.StringIO()
    cfg, _ = parse_herd7_args([str(DATA / f"{name}.litmus")])
    assert run_tests(cfg, out, err) in (0, 1), err.getvalue()
    ours = "".join(x + "\n" for x in out.getvalue().split("\n") if not x.startswith("Time "))
    assert ours.rstrip("\n") == (DATA / f"{name}.expected").read_text().rstrip("\n")
