"""``verify --model rc11|ra`` counts as GenMC v0.11 counts (the built-in models' variants
``genmc-rs``, its C++20 release sequences, and ``genmc-sc``, its SC order, which verify
turns on), and as herd's ``rc11.cat`` with ``--no-genmc-variants``.  The counts under
GenMC's semantics are GenMC 0.11's own on these programs (measured with ``genmc -rc11``
and ``-ra``); herdsman's run needs no GenMC."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from herdsman.herd_compat.cli.main import main

HEAD = "#include <pthread.h>\n#include <stdatomic.h>\natomic_int x, y;\n"


def program(threads: list[list[str]]) -> str:
    """Threads of the given statements, created by main."""
    text = HEAD
    for i, body in enumerate(threads):
        text += f"void *t{i}(void *a)\n{{\n" + "".join(f"\t{s}\n" for s in body)
        text += "\treturn 0;\n}\n"
    n = len(threads)
    text += f"int main()\n{{\n\tpthread_t p[{n}];\n"
    text += "".join(f"\tpthread_create(&p[{i}], 0, t{i}, 0);\n" for i in range(n))
    return text + "\treturn 0;\n}\n"


def st(v: str, n: int, o: str) -> str:
    return f"atomic_store_explicit(&{v}, {n}, memory_order_{o});"


def ld(v: str, o: str) -> str:
    return f"atomic_load_explicit(&{v}, memory_order_{o});"


# a release store then a relaxed one to the same location: RC11's release sequence
# goes on through the second (an acquire read of 2 synchronises), C++20's does not
RELSEQ = program(
    [
        [st("x", 1, "relaxed"), st("y", 1, "release"), st("y", 2, "relaxed")],
        [f"if ({ld('y', 'acquire')[:-1]} == 2)", "\t" + ld("x", "relaxed")],
    ]
)
# sb; hb; sb between SC accesses at one location (RC11 needs sb \ loc there)
SBHBSB = program(
    [
        [ld("x", "acquire"), ld("y", "seq_cst")],
        [st("x", 1, "seq_cst"), st("x", 2, "seq_cst")],
        [st("y", 1, "seq_cst"), ld("x", "seq_cst")],
    ]
)
# hb & loc through a relaxed read-modify-write: in RC11's SC order, not in GenMC's
HBLOC = program(
    [
        [st("x", 1, "seq_cst")],
        ["atomic_fetch_add_explicit(&x, 1, memory_order_relaxed);"],
        [ld("x", "seq_cst"), ld("y", "seq_cst")],
        [st("y", 1, "seq_cst"), ld("x", "seq_cst")],
    ]
)

#: program, model, GenMC's count (verify), herd's rc11.cat's (--no-genmc-variants)
CASES = [
    ("relseq", RELSEQ, "rc11", 4, 3),
    ("relseq", RELSEQ, "ra", 4, 3),
    ("sbhbsb", SBHBSB, "rc11", 17, 18),
    ("hbloc", HBLOC, "rc11", 33, 32),
    ("hbloc", HBLOC, "ra", 36, 36),
]


def complete(capsys) -> int:
    m = re.search(r"Number of complete executions explored: (\d+)", capsys.readouterr().out)
    assert m is not None
    return int(m.group(1))


@pytest.mark.parametrize("name, text, model, genmc, herd", CASES)
def test_genmc_and_herd_counts(
    tmp_path: Path, capsys, name: str, text: str, model: str, genmc: int, herd: int
) -> None:
    path = tmp_path / f"{name}.c"
    path.write_text(text)
    assert main(["verify", "--model", model, str(path)]) == 0
    assert complete(capsys) == genmc
    assert main(["verify", "--model", model, "--no-genmc-variants", str(path)]) == 0
    assert complete(capsys) == herd
    # the variants by name, as any command takes them
    args = ["--no-genmc-variants", "--variant", "genmc-rs,genmc-sc"]
    assert main(["verify", "--model", model, *args, str(path)]) == 0
    assert complete(capsys) == genmc


def test_run_keeps_herds_semantics(tmp_path: Path, capsys) -> None:
    """The variants are verify's: a model loaded without them is herd's rc11.cat."""
    from herdsman.cat.api import load_model

    assert load_model("rc11").variants == frozenset()
    assert {"genmc-rs", "genmc-sc"} <= load_model("rc11").variants_read
    assert load_model("ra").variants_read >= {"genmc-rs"}
