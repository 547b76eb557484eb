"""bench/fuzz_inputs.py on a small sample: mutated tests of every architecture give
results or clean errors."""

from __future__ import annotations

from support.bench import load_bench


def _bench():
    return load_bench("fuzz_inputs")


FUZZ = _bench()


def test_fuzz_sample_breaks_no_rule(tmp_path, capsys):
    assert FUZZ.main(["--count", "40", "--seed", "3", "--keep", str(tmp_path)]) == 0, (
        capsys.readouterr().out
    )
    out = capsys.readouterr().out
    assert "40 mutated tests" in out and "0 broke the rules" in out
    assert not list(tmp_path.iterdir())  # nothing kept when nothing failed


def test_every_architecture_is_drawn():
    arches = {c.arch for c in FUZZ.cases(200, 7)}
    assert {"PPC", "X86", "X86_64", "C"} <= arches
    assert FUZZ.cases(20, 7) == FUZZ.cases(20, 7)
