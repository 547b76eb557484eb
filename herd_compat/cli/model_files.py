"""The files a model is made of, on herdsman's own command lines: ``--bell FILE`` (herd's
``-bell``: run before the model), ``--macros FILE`` (herd's ``-macros``: C macros onto
herd's primitives) and ``--conf FILE`` (a herd configuration file, as ``herd7 -conf``
reads it: its model, bell, macros, variants and include directories; options given on the
command line win)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field

from herdsman.herd_compat.cli.herd7opts import State, read_conf_file
from herdsman.herd_compat.pipeline.config import RunConfig


def add_model_files(p: argparse.ArgumentParser) -> None:
    """Add ``--bell``, ``--macros`` and ``--conf`` to a command's parser."""
    p.add_argument("--bell", metavar="FILE", help="bell file run before the model (herd's -bell)")
    p.add_argument(
        "--macros", metavar="FILE", help="macro file (.def) for C litmus tests (herd's -macros)"
    )
    p.add_argument(
        "--conf",
        metavar="FILE",
        help="herd configuration file (as herd7 -conf: model, bell, macros, variants, -I); "
        "options given here win",
    )


@dataclass
class ModelFiles:
    """A command's model and the files that go with it, the conf file's merged in."""

    model: str | None
    bell: str | None
    macros: str | None
    variants: set[str] = field(default_factory=set)
    include_dirs: list[str] = field(default_factory=list)


def model_files(
    a: argparse.Namespace, model: str | None, include: list[str], variants: set[str]
) -> ModelFiles:
    """The model files of parsed arguments ``a`` (with its ``--model``, ``-I`` and
    ``--variant`` values given): the conf file first, then the command line's."""
    base = RunConfig()
    if a.conf:
        read_conf_file(a.conf, base, State())
    return ModelFiles(
        model=model or base.model,
        bell=a.bell or base.bell,
        macros=a.macros or base.macros,
        variants=base.variants | variants,
        include_dirs=[*base.include_dirs, *include],
    )
