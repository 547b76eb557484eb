"""Pictures as images: DOT text laid out and drawn by Graphviz, as SVG or PNG.

The renderer is found without installing anything by hand: ``graphviz-pure`` (a
dependency of herdsman: the wheel ships Graphviz's ``dot`` and ``neato`` as one program,
installed beside Python's own scripts), else a system Graphviz ``dot`` where that is the
only one; with neither, :class:`RenderError` says what to install.  Each run of the
program is bounded: :data:`RENDER_SECONDS` of wall time for a batch (plus a little per
picture) and :data:`RENDER_MB` of address space.

``render(dot_text, path)`` writes one image; ``render_all(texts, fmt)`` draws several
DOT texts with one run of the program (it reads them as files, one image each) and
returns the images' bytes.
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "IMAGE_FORMATS",
    "LAYOUTS",
    "RENDER_MB",
    "RENDER_SECONDS",
    "RenderError",
    "Renderer",
    "find_renderer",
    "render",
    "render_all",
]

#: The image formats herdsman writes (besides DOT text).
IMAGE_FORMATS = ("svg", "png")
#: Graphviz's layout programs a picture may ask for (herd's ``-dotcom``).
LAYOUTS = ("dot", "neato", "circo")
#: Bounds of one run of the renderer: wall seconds for a batch (and per picture in it),
#: and megabytes of address space.
RENDER_SECONDS = 30.0
RENDER_PER_PICTURE = 2.0
RENDER_MB = 2048


class RenderError(Exception):
    """No Graphviz renderer, or it failed on a picture."""


@dataclass(frozen=True)
class Renderer:
    """A program that lays out and draws DOT text with ``dot``'s flags (``-K``, ``-T``,
    ``-O``): ``name`` is ``graphviz-pure`` or ``dot``."""

    name: str
    program: str


def _scripts_dirs() -> list[Path]:
    """Where ``pip`` puts the programs of installed wheels: this Python's scripts
    directory (a virtual environment's ``bin``, also when it is not activated)."""
    dirs = [Path(sysconfig.get_path("scripts")), Path(sys.executable).parent]
    user = sysconfig.get_path("scripts", f"{os.name}_user")
    if user:
        dirs.append(Path(user))
    return dirs


def find_renderer() -> Renderer:
    """graphviz-pure (on PATH or beside this Python), else a system ``dot``."""
    found = shutil.which("graphviz-pure")
    if found is None:
        exe = "graphviz-pure.exe" if os.name == "nt" else "graphviz-pure"
        for d in _scripts_dirs():
            if (d / exe).is_file() and os.access(d / exe, os.X_OK):
                found = str(d / exe)
                break
    if found is not None:
        return Renderer("graphviz-pure", found)
    dot = shutil.which("dot")
    if dot is not None:
        return Renderer("dot", dot)
    raise RenderError(
        "no Graphviz renderer: herdsman draws pictures with graphviz-pure "
        "(pip install graphviz-pure; it comes with herdsman) or a system 'dot' "
        "(Debian/Ubuntu: apt-get install graphviz); or keep the .dot text (--format dot)"
    )


def _limit_memory() -> None:  # runs in the child, before the renderer starts
    limit = RENDER_MB * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _run(renderer: Renderer, args: list[str], cwd: str, pictures: int) -> None:
    timeout = RENDER_SECONDS + RENDER_PER_PICTURE * pictures
    try:
        proc = subprocess.run(
            [renderer.program, *args],
            cwd=cwd,
            capture_output=True,
            stdin=subprocess.DEVNULL,
            timeout=timeout,
            check=False,
            preexec_fn=_limit_memory if os.name == "posix" else None,
        )
    except subprocess.TimeoutExpired:
        raise RenderError(f"{renderer.name} took more than {timeout:g} s") from None
    except OSError as e:
        raise RenderError(f"{renderer.name} cannot run: {e.strerror}") from None
    if proc.returncode != 0:
        msg = " ".join(proc.stderr.decode(errors="replace").split())
        raise RenderError(f"{renderer.name} failed: {msg or 'exit status ' + str(proc.returncode)}")


def render_all(
    texts: Sequence[str],
    fmt: str = "svg",
    layout: str = "dot",
    renderer: Renderer | None = None,
) -> list[bytes]:
    """The images of DOT texts ``texts`` (one graph each) in format ``fmt``, laid out by
    ``layout`` (``neato`` for pinned positions), drawn by one run of the renderer."""
    if fmt not in IMAGE_FORMATS:
        raise ValueError(f"cannot render to {fmt!r}")
    if layout not in LAYOUTS:
        raise ValueError(f"unknown layout {layout!r}")
    if not texts:
        return []
    renderer = renderer or find_renderer()
    with tempfile.TemporaryDirectory(prefix="herdsman-render-") as tmp:
        names = [f"g{i}.dot" for i in range(len(texts))]
        for name, text in zip(names, texts, strict=True):
            Path(tmp, name).write_text(text, encoding="utf-8")
        _run(renderer, [f"-K{layout}", f"-T{fmt}", "-O", *names], tmp, len(texts))
        out = []
        for name in names:
            image = Path(tmp, f"{name}.{fmt}")
            if not image.is_file():
                raise RenderError(f"{renderer.name} wrote no image for a picture")
            out.append(image.read_bytes())
        return out


def render(
    dot_text: str,
    path: str | Path,
    fmt: str | None = None,
    engine: str = "dot",
    renderer: Renderer | None = None,
) -> Path:
    """Draw ``dot_text`` into ``path`` (format from ``fmt`` or the file's suffix), laid
    out by ``engine``.  Raises :class:`RenderError` when no renderer is found or it
    fails."""
    path = Path(path)
    fmt = fmt or path.suffix.lstrip(".") or "svg"
    (image,) = render_all([dot_text], fmt, engine, renderer)
    path.write_bytes(image)
    return path
