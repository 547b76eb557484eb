"""Bell files (``cat/bell.py``): the annotations their ``instructions`` declare become
event sets, and the bell runs before the model, as herd runs it."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import shared_path

from herdsman.cat.api import load_model, load_model_text
from herdsman.cat.bell import read_bell, tag_set_name
from herdsman.graphs.events import Event
from herdsman.graphs.skeleton import Skeleton
from herdsman.litmus.base.errors import InputError

BELL = """"a bell"
enum Accesses = 'once || 'ACQUIRE || 'release
instructions R[{'once,'ACQUIRE}]
instructions W[{'once,'release}]
enum Barriers = 'wmb || 'rcu-lock
instructions F[Barriers]
instructions RMW['once]
let Acquire = ACQUIRE & R
flag ~empty Rcu-lock as saw-rcu-lock
"""


def test_tag_set_names() -> None:
    assert [tag_set_name(t) for t in ("once", "MB", "rcu-lock", "sync-srcu")] == [
        "Once",
        "MB",
        "Rcu-lock",
        "Sync-srcu",
    ]


def test_a_bell_declares_its_sets(tmp_path: Path) -> None:
    p = tmp_path / "b.bell"
    p.write_text(BELL)
    b = read_bell(str(p))
    assert b.annotations == {"once", "ACQUIRE", "release", "wmb", "rcu-lock"}
    assert b.tag_sets() == {
        "ACQUIRE": "ACQUIRE",
        "Once": "once",
        "Rcu-lock": "rcu-lock",
        "Release": "release",
        "Wmb": "wmb",
    }


def test_the_bell_runs_before_the_model(tmp_path: Path) -> None:
    """The bell's lets and flags hold in the model; its sets hold the annotated events."""
    bell = tmp_path / "b.bell"
    bell.write_text(BELL)
    cat = tmp_path / "m.cat"
    cat.write_text('"m"\nflag ~empty Acquire as saw-acquire\nflag ~empty Wmb as saw-wmb\n')
    model = load_model(str(cat), bell=str(bell))
    assert [a.name for a in model.axioms] == ["saw-rcu-lock", "saw-acquire", "saw-wmb"]
    events = (
        Event("W", -1, -1, -1, loc="x", value=0),
        Event("R", 0, 0, 0, loc="x", value=0, annots=frozenset({"ACQUIRE"})),
        Event("F", 0, 1, 1, annots=frozenset({"rcu-lock"})),
    )
    sk = Skeleton(events, 1)
    rf = sk.U.pair(0, 1)
    (verdict,) = model.prepare(sk, "C").check(rf, co=0)
    assert verdict.allowed and verdict.flags == {"saw-rcu-lock", "saw-acquire"}


def test_without_the_bell_its_names_are_unknown(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="unknown"):
        load_model_text('"m"\nflag ~empty Rcu-lock as w\n', str(tmp_path / "m.cat"))


def test_the_lkmm_loads_with_its_bell() -> None:
    cats = shared_path("linux", "cats")
    m = load_model(
        str(cats / "linux-kernel.cat"), bell=str(cats / "linux-kernel.bell"), variants={"lkmmv2"}
    )
    names = [a.name for a in m.axioms]
    assert names[:2] == ["unmatched-rcu-lock", "unmatched-rcu-unlock"]  # the bell's first
    assert {"coherence", "happens-before", "propagation", "rcu", "data-race"} <= set(names)
    assert m.co_mode == "generic" and m.reads_values  # lock.cat's own co; different-values


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("instructions Q['a]\n", "event type Q is not part of legal"),
        ("enum E = 'a\nenum E = 'b\n", "second definition of bell enum E"),
        ("instructions R[x]\n", "expected a set of tags"),
        ("enum scopes = 'a\n", "scopes, regions, levels"),
        ("default R['a]\ndefault R['b]\n", "second definition of default"),
        ("instructions R[{'a\n", "error"),
    ],
)
def test_malformed_bells(tmp_path: Path, text: str, message: str) -> None:
    p = tmp_path / "b.bell"
    p.write_text('"b"\n' + text)
    with pytest.raises(InputError) as e:
        read_bell(str(p))
    assert e.value.path == str(p) and message in e.value.render()
