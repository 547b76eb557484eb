"""``fences --model rc11``: stronger orders on relaxed accesses (a store made release, a
load acquire) and C11 fences (seq_cst, acq_rel, release, acquire) placed in C programs of
relaxed atomics, weakest first, judged by TruSt under the built-in ``rc11``; each answer
is checked against the model (the fenced program is safe) and by brute force (no cheaper
set of placements makes it safe)."""

from __future__ import annotations

import collections
import json
from pathlib import Path

import pytest

from herdsman.cat.api import load_model
from herdsman.graphs.events import Event
from herdsman.herd_compat.analyses.fences.brute import cheaper_works
from herdsman.herd_compat.analyses.fences.models import relaxed_by
from herdsman.herd_compat.analyses.fences.orders import (
    ACQUIRE,
    RELEASE,
    ordered_c_text,
    orders_of_line,
)
from herdsman.herd_compat.analyses.fences.programs import KINDS, ProgramOracle, c_loader
from herdsman.herd_compat.analyses.fences.solve import COSTS, Candidate
from herdsman.herd_compat.analyses.fences.synth import synthesise
from herdsman.herd_compat.cli.main import main

HEAD = "#include <assert.h>\n#include <pthread.h>\n#include <stdatomic.h>\n\natomic_int x, y, z;\n"
HEAD += "int a, b, c, d;\n"


def _thread(name: str, body: list[str]) -> str:
    lines = []
    for op in body:
        kind, var, reg = op[0], op[1], op[2:]
        if kind == "W":
            lines.append(f"\tatomic_store_explicit(&{var}, 1, memory_order_relaxed);")
        else:
            lines.append(f"\t{reg} = atomic_load_explicit(&{var}, memory_order_relaxed);")
    return f"void *{name}(void *arg)\n{{\n" + "\n".join(lines) + "\n\treturn 0;\n}\n"


def program(threads: list[list[str]], bad: str) -> str:
    """Threads of relaxed accesses (``Wx``: store 1 to x, ``Rya``: a = load y), joined by
    main, which asserts that ``bad`` does not hold."""
    text = HEAD + "".join(_thread(f"t{i}", t) for i, t in enumerate(threads))
    n = len(threads)
    text += f"int main(void)\n{{\n\tpthread_t p[{n}];\n"
    text += "".join(f"\tpthread_create(&p[{i}], 0, t{i}, 0);\n" for i in range(n))
    text += "".join(f"\tpthread_join(p[{i}], 0);\n" for i in range(n))
    return text + f"\tassert(!({bad}));\n\treturn 0;\n}}\n"


MP = program([["Wx", "Wy"], ["Rya", "Rxb"]], "a == 1 && b == 0")
SB = program([["Wx", "Rya"], ["Wy", "Rxb"]], "a == 0 && b == 0")
LB = program([["Rxa", "Wy"], ["Ryb", "Wx"]], "a == 1 && b == 1")
MP3 = program([["Wx", "Wz", "Wy"], ["Rya", "Rzc", "Rxb"]], "a == 1 && (b == 0 || c == 0)")
IRIW = program(
    [["Wx"], ["Wy"], ["Rxa", "Ryb"], ["Ryc", "Rxd"]], "a == 1 && b == 0 && c == 1 && d == 0"
)


def _fence(tmp_path: Path, name: str, text: str) -> tuple[ProgramOracle, dict[str, int], int]:
    path = tmp_path / f"{name}.c"
    path.write_text(text)
    target = load_model("rc11").identity.target
    oracle = ProgramOracle(text, str(path), c_loader(str(path), target, {}, []), "rc11", 1)
    res = synthesise(oracle)
    assert res.safe, res.why
    kinds = collections.Counter(c.kind for c in res.chosen)
    return oracle, dict(kinds), sum(COSTS[c.kind] for c in res.chosen)


@pytest.mark.parametrize(
    "name, text, kinds, minimal",
    [
        # a release store and an acquire load, cheaper than release and acquire fences
        ("mp", MP, {"release access": 1, "acquire access": 1}, True),
        ("mp3", MP3, {"release access": 1, "acquire access": 1}, True),
        ("sb", SB, {"seq_cst": 2}, True),
        ("lb", LB, {}, False),  # RC11 forbids po ∪ rf cycles: safe as it is
        # acquire loads or fences do not suffice (not multi-copy atomic): later rounds
        ("iriw", IRIW, {"seq_cst": 2}, False),
    ],
)
def test_weakest_fences(
    tmp_path: Path, name: str, text: str, kinds: dict[str, int], minimal: bool
) -> None:
    oracle, got, cost = _fence(tmp_path, name, text)
    assert got == kinds
    assert oracle.violations(oracle.chosen) == []  # the fenced text, judged again
    if not minimal:
        return
    brute = cheaper_works(oracle, cost, limit=60)
    assert brute is not True
    if brute is None:  # too many sets: each placement dropped or weakened is not enough
        chosen = oracle.chosen
        for x in chosen:
            rest = chosen - {x}
            weaker = [Candidate(x.site, k) for k in KINDS["rc11"] if COSTS[k] < COSTS[x.kind]]
            for alt in [rest, *(rest | {w} for w in weaker)]:
                assert oracle.violations(alt), (x, alt)


def _event(kind: str, annots: set[str], loc: str | None = "x") -> Event:
    return Event(kind, 0, 0, 0, loc=loc, annots=frozenset(annots))


def test_what_rc11_relaxes() -> None:
    rel = relaxed_by("rc11")
    w, r = _event("W", {"A", "RLX"}), _event("R", {"A", "RLX"}, "y")
    fence = {k: _event("F", {k}, None) for k in ("SC", "ACQ_REL", "REL", "ACQ")}
    assert not rel(r, w, [])  # no po ∪ rf cycle
    assert rel(w, r, []) and rel(w, r, [fence["ACQ_REL"]]) and not rel(w, r, [fence["SC"]])
    assert not rel(_event("W", {"A", "SC"}), _event("R", {"A", "SC"}, "y"), [])
    assert rel(w, w, [fence["ACQ"]]) and not rel(w, w, [fence["REL"]])
    assert not rel(w, _event("W", {"A", "REL"}, "y"), [])
    assert rel(r, r, [fence["REL"]]) and not rel(r, r, [fence["ACQ"]])
    assert not rel(_event("R", {"A", "ACQ"}), r, [])


def test_the_command(capsys, tmp_path: Path) -> None:
    path = tmp_path / "mp.c"
    path.write_text(MP)
    out_c = tmp_path / "mp_fenced.c"
    rc = main(["fences", str(path), "-m", "rc11", "-o", str(out_c), "--json"])
    data = json.loads(capsys.readouterr().out)
    assert rc == 0 and data["safe"] and data["model"] == "rc11"
    assert sorted((p["what"], p["how"]) for p in data["placements"]) == [
        ("memory_order_acquire", "on"),
        ("memory_order_release", "on"),
    ]
    fenced = out_c.read_text()
    assert "atomic_store_explicit(&y, 1, memory_order_release);" in fenced
    assert "a = atomic_load_explicit(&y, memory_order_acquire);" in fenced
    assert "fence" not in fenced and len(fenced.splitlines()) == len(MP.splitlines())
    rc = main(["verify", str(out_c), "-m", "rc11"])
    assert rc == 0 and "No errors were detected." in capsys.readouterr().out
    rc = main(["verify", str(path), "-m", "rc11"])
    assert rc == 42 and "Assertion violation" in capsys.readouterr().out


def test_which_accesses_get_an_order() -> None:
    """One relaxed atomic_*_explicit access on the line: a store may become release, a
    load acquire, a read-modify-write either (both: acq_rel); nothing else."""
    store = "\tatomic_store_explicit(&y, 1, memory_order_relaxed);"
    load = "a = atomic_load_explicit(&y, memory_order_relaxed);"
    rmw = "atomic_fetch_add_explicit(&y, 1, memory_order_relaxed);"
    assert orders_of_line(store) == (RELEASE,)
    assert orders_of_line(load) == (ACQUIRE,)
    assert set(orders_of_line(rmw)) == {RELEASE, ACQUIRE}
    assert orders_of_line(store.replace("relaxed", "release")) == ()
    assert orders_of_line("y = 1;") == orders_of_line(store + " " + load) == ()
    text = "\n".join([store, load, rmw])
    assert ordered_c_text(text, [(1, RELEASE), (2, ACQUIRE), (3, RELEASE), (3, ACQUIRE)]) == (
        "\n".join(
            [
                store.replace("relaxed", "release"),
                load.replace("relaxed", "acquire"),
                rmw.replace("relaxed", "acq_rel"),
            ]
        )
    )
