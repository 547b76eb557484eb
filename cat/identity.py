"""Which model a cat model is (its :class:`cat.contract.ModelIdentity`), decided once
when it is loaded, from its text, never from its file's name; and the built-in models.

**The table of built-in models is** :data:`BUILTINS` **: one entry per model.**  Adding a
built-in model is writing its file ``cat/models/NAME.cat`` and adding one
:class:`Builtin` here: its name, the other names herd's users give it, the digests of
herd's own files that are this model (:func:`digest` of each; herd's files are test
inputs, never copied), the operational machine whose runs are exactly its executions
(if any), the C mapping C programs are lowered with for it (``litmus.c.target``) and
whether it looks at branch commit events.
Everything else (``-model NAME``, ``--engine operational``, C lowering, ``fences``) reads
the identity.

A model is the built-in ``NAME`` when its text is the text of ``cat/models/NAME.cat`` or
of one of herd's files listed for it, comments and layout aside (its includes are not
compared: they resolve as the compiler resolves them).  Any other text is ``other``: a
file named ``tso.cat`` with axioms of its own runs on the axiomatic engines, not on the
TSO machine.  A name with no such file still selects the built-in model (herd's
``-model ppc.cat``: see ``cat.api.resolve_spec``).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from herdsman.cat.cattext import strip_comments
from herdsman.cat.contract import ModelIdentity
from herdsman.litmus.base.arch import is_arch

__all__ = [
    "BUILTINS",
    "MODELS_DIR",
    "OTHER",
    "Builtin",
    "builtin_file",
    "builtin_names",
    "digest",
    "identify",
]

#: The built-in models' files.
MODELS_DIR = Path(__file__).with_name("models")

#: The family of a model that is none of the built-in ones.
OTHER = "other"


@dataclass(frozen=True, slots=True)
class Builtin:
    """A built-in model (see the module docstring): ``name`` (its file
    ``cat/models/<name>.cat``), other ``aliases`` (as ``-model`` gives them),
    ``herd``: digests of herd's own files of this model, ``machine``: the operational
    machine that runs it (None: none), ``target``: the C mapping for it,
    ``branch_events``: whether it looks at the commit events of conditional branches
    (their ``B`` events and the ``ctrl`` they carry)."""

    name: str
    aliases: tuple[str, ...] = ()
    herd: tuple[str, ...] = ()
    machine: str | None = None
    target: str = "c"
    branch_events: bool = True

    @property
    def path(self) -> Path:
        return MODELS_DIR / f"{self.name}.cat"


#: The built-in models: one entry each (see the module docstring).
BUILTINS: tuple[Builtin, ...] = (
    Builtin(
        "sc",
        herd=("11c40a654b1b57f919da76035399618e75cff60b04d439f9d678a9fc143c7488",),  # sc.cat
        machine="sc",
        target="tso",
    ),
    Builtin(
        "tso",
        aliases=("x86tso", "x86-tso"),
        herd=(
            "543999759c61fc1a8d7994893ea0d45daeb7a47d2a2ae92ab27f8d201a9c3066",  # x86tso.cat
            "ed926690492c07f78ba37011a30cd31497c066b3eda26b779908ad9b9b96d360",  # tso.cat
        ),
        machine="tso",
        target="tso",
    ),
    Builtin("tso64", aliases=("x86tso-mixed",)),
    Builtin("pso", aliases=("sparc-pso",), machine="pso", target="pso"),
    Builtin(
        "power",
        aliases=("ppc",),
        herd=("591b4fe462f49b9ca18c4959f72e355753428609d797f8ecbfba480d70c6610a",),  # ppc.cat
        target="power",
    ),
    Builtin(
        "arm",
        herd=("7c3fbd9c86bf4daff3e977c0a2f81fb4ab09556882595e49638f7efd502bd2fc",),  # arm.cat
    ),
    Builtin(
        "riscv",
        herd=("b68db0b2267bb8bc872fe5e1e6db3fe636a316db75f166048cf7c34656be146c",),  # riscv.cat
    ),
    Builtin(
        "rc11",
        herd=("b5af1c79b499807a22f5d4a7129b0bf6f730ede5befa1fb23b7c9a74bb26a890",),  # rc11.cat
        branch_events=False,  # (no axiom names ctrl or B: po, hb, psc pass through them)
    ),
    Builtin("ra", branch_events=False),
    Builtin("aarch64"),  # the Arm ARM's axiomatic model (herd's aarch64.cat's answers)
)

_BY_NAME = {name: b for b in BUILTINS for name in (b.name, *b.aliases)}


def digest(text: str) -> str:
    """The digest that identifies a model's text: SHA-256 of its tokens' text, comments
    removed and every run of white space one space."""
    plain = " ".join(strip_comments(text, "<model>").split())
    return hashlib.sha256(plain.encode()).hexdigest()


def builtin_file(name: str) -> Path | None:
    """The file of the built-in model called ``name`` (or one of its aliases; any case),
    if there is one."""
    b = _BY_NAME.get(name.lower())
    return None if b is None else b.path


def builtin_names() -> list[str]:
    """Every name ``-model`` accepts for a built-in model."""
    return sorted(_BY_NAME)


@cache
def _by_digest() -> dict[str, Builtin]:
    """The built-in models by the digests of their own files and of herd's."""
    out: dict[str, Builtin] = {}
    for b in BUILTINS:
        out[digest(b.path.read_text(encoding="utf-8"))] = b
        for d in b.herd:
            out[d] = b
    return out


def identify(text: str, arch: str, exact: bool) -> ModelIdentity:
    """The identity of a model of text ``text`` declaring architecture ``arch``;
    ``exact``: its checks all apply (no ``-skipchecks`` skipping one, no ``-through``),
    else no machine runs it."""
    d = digest(text)
    b = _by_digest().get(d)
    return ModelIdentity(
        family=OTHER if b is None else b.name,
        machine=b.machine if b is not None and exact else None,
        target="c" if b is None else b.target,
        arch=arch if is_arch(arch) else None,
        digest=d,
        branch_events=b is None or b.branch_events,
    )
