"""The reference search's uniproc cuts (``engine.reference.uniproc.uniproc_cuts``) and
its shape numbering (``engine.semantics.enumerate.by_shape``): answers as without them,
fewer candidates where uniproc rules some out, nothing cut for a model without uniproc."""

from __future__ import annotations

import pytest
from conftest import shared_path

from herdsman.cat.api import load_model, load_model_text
from herdsman.engine.outcome import OutcomeBuilder
from herdsman.engine.reference.search import Combo, Goal
from herdsman.engine.reference.uniproc import uniproc_cuts
from herdsman.engine.run import RunOptions, run_program
from herdsman.engine.semantics.enumerate import ThreadExec, by_shape, thread_executions
from herdsman.litmus.lower import lower
from herdsman.litmus.parser import parse_file

CO_TESTS = [
    "CoRR+fence.rw.rws",
    "CoRW1+fence.rw.rws",
    "CoRW2+fence.rw.rws",
    "CoWR0+fence.rw.rws",
    "CoWW+fence.rw.rws",
    "2+2W+poss",
    "MP+poss",
    "SB+fence.rw.rwss",
]

#: RISC-V without coherence: a read may read from anything of its value
NO_UNIPROC = 'RISCV "no uniproc"\ninclude "cos-opt.cat"\nacyclic po as Order\n'


#: a read after a write of its own thread, another thread writing the location too
COWR = """RISCV CoWR
{
0:x5=1; 0:x6=x;
1:x5=2; 1:x6=x;
}
 P0          | P1          ;
 sw x5,0(x6) | sw x5,0(x6) ;
 lw x7,0(x6) |             ;
exists (0:x7=2 /\\ x=1)
"""


def _program(name: str):
    return lower(parse_file(str(shared_path("riscv/tests/CO") / f"{name}.litmus")))


def _combo(name: str, model, program=None) -> Combo:
    program = program or _program(name)
    threads = thread_executions(program)
    goal = Goal(list(program.observed), program.condition.prop, program.condition.quant)
    tally = OutcomeBuilder(goal.observed, goal.quant)
    variants = [by_shape(execs)[0] for execs in threads.execs]
    return Combo(threads, variants, model, program.arch, goal, tally)


@pytest.fixture(scope="module")
def riscv():
    return load_model(str(shared_path("riscv/cat/riscv.cat")))


@pytest.mark.parametrize("name", CO_TESTS)
def test_cuts_keep_the_answers(riscv, name):
    program = _program(name)
    full = run_program(program, riscv, RunOptions(engine="reference", prune="never"))
    cut = run_program(program, riscv, RunOptions(engine="reference"))
    assert (cut.states, cut.positive, cut.negative) == (full.states, full.positive, full.negative)
    assert cut.stats.candidates <= full.stats.candidates


def test_uniproc_cuts_reads_it_forbids(riscv):
    combo = _combo("CoWR0+fence.rw.rws", riscv)
    cands, forbid = uniproc_cuts(combo, combo.session.partial_violation)
    # a read po-after a write of its own thread may not read the initial write, nor the
    # other thread's write if that one is co-before its own
    assert sum(map(len, cands.values())) < sum(map(len, combo.cands.values()))
    assert not forbid


def test_uniproc_forbids_co_edges_with_an_rf(riscv, tmp_path):
    path = tmp_path / "CoWR.litmus"
    path.write_text(COWR)
    program = lower(parse_file(str(path)))
    combo = _combo("CoWR", riscv, program)
    cands, forbid = uniproc_cuts(combo, combo.session.partial_violation)
    # the read may not read P1's write co-before P0's own (nor the initial write)
    assert len(forbid) == 1
    assert sum(map(len, cands.values())) == sum(map(len, combo.cands.values())) - 1
    full = run_program(program, riscv, RunOptions(engine="reference", prune="never"))
    cut = run_program(program, riscv, RunOptions(engine="reference"))
    assert (cut.states, cut.positive, cut.negative) == (full.states, full.positive, full.negative)
    assert cut.positive == 0 and cut.stats.candidates < full.stats.candidates
    combo = _combo("CoRW1+fence.rw.rws", riscv)
    cands, forbid = uniproc_cuts(combo, combo.session.partial_violation)
    # a read may not read from the write po-after it
    assert sum(map(len, cands.values())) < sum(map(len, combo.cands.values()))


@pytest.mark.parametrize("name", ["CoWR0+fence.rw.rws", "CoRW1+fence.rw.rws", "2+2W+poss"])
def test_nothing_cut_without_uniproc(name):
    model = load_model_text(NO_UNIPROC, str(shared_path("riscv/cat/riscv.cat")))
    combo = _combo(name, model)
    cands, forbid = uniproc_cuts(combo, combo.session.partial_violation)
    assert cands == combo.cands and not forbid
    program = _program(name)
    full = run_program(program, model, RunOptions(engine="reference", prune="never"))
    cut = run_program(program, model, RunOptions(engine="reference"))
    assert (cut.states, cut.positive, cut.negative) == (full.states, full.positive, full.negative)


@pytest.mark.parametrize("name", CO_TESTS)
def test_shapes_numbered_as_computed(name):
    threads = thread_executions(_program(name))
    for execs in threads.execs:
        plain: dict[tuple, list[ThreadExec]] = {}
        for te in execs:
            plain.setdefault(te.shape(), []).append(te)
        assert by_shape(execs) == list(plain.values())
        assert by_shape(execs) == list(plain.values())  # numbered now: the same again
