"""The bundled examples the workbench offers (files under ``litmus/examples``), and the
built-in models' text: the only files the server reads on a browser's request."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path, PurePosixPath

from herdsman.cat.api import builtin_names, resolve_spec
from herdsman.litmus.base.source import MAX_MODEL_BYTES, MAX_SOURCE_BYTES, read_text

#: What an example is, by its file's suffix.
KINDS = {".litmus": "litmus", ".c": "program"}


class NotAnExample(Exception):
    """A path that names no bundled example (outside the examples, or no such file)."""


@dataclass(frozen=True)
class Example:
    """A bundled example: its path under ``litmus/examples`` (``ppc/MP.litmus``) and its
    kind (``litmus``: a litmus test, any architecture; ``program``: a C program)."""

    path: str
    kind: str

    @property
    def folder(self) -> str:
        return self.path.split("/", 1)[0]


def examples_root() -> Path:
    """Where the bundled examples are installed."""
    return Path(str(resources.files("herdsman.litmus.examples")))


def list_examples() -> list[Example]:
    """Every bundled example, by folder then name."""
    root = examples_root()
    out = []
    for p in sorted(root.rglob("*")):
        if p.suffix in KINDS and p.is_file() and not p.is_symlink():
            out.append(Example(p.relative_to(root).as_posix(), KINDS[p.suffix]))
    return out


def resolve_example(path: str) -> tuple[Example, Path]:
    """The example named by ``path`` (relative to the examples, ``/`` separated) and its
    file; :class:`NotAnExample` for anything else: an absolute path, ``..``, another
    suffix, a file that is not there, a link leading elsewhere."""
    pure = PurePosixPath(path)
    if (
        not path
        or pure.is_absolute()
        or "\\" in path
        or any(part in ("", ".", "..") for part in path.split("/"))
        or pure.suffix not in KINDS
    ):
        raise NotAnExample(f"{path}: not a bundled example (paths under litmus/examples)")
    root = examples_root().resolve()
    file = (root / pure).resolve()
    if not file.is_relative_to(root) or not file.is_file():
        raise NotAnExample(f"{path}: not a bundled example (paths under litmus/examples)")
    return Example(pure.as_posix(), KINDS[pure.suffix]), file


def example_text(path: str) -> str:
    """The text of the bundled example ``path``."""
    _, file = resolve_example(path)
    return read_text(file, MAX_SOURCE_BYTES, "examples")


def model_text(name: str) -> str:
    """The cat text of the built-in model ``name`` (to start editing from)."""
    if name not in builtin_names():
        raise NotAnExample(f"{name}: not a built-in model ({', '.join(builtin_names())})")
    return read_text(resolve_spec(name), MAX_MODEL_BYTES, "cat files")
