"""The files a model is made of, on herdsman's own command lines: ``--bell FILE`` (herd's
``-bell``: run before the model), ``--macros FILE`` (herd's ``-macros``: C macros onto
herd's primitives) and ``--conf FILE`` (a herd configuration file, as ``herd7 -conf``
reads it: its model, bell, macros, variants and include directories; options given on the
command line win)."""

from __future__ import annotations

import argparse
from dataclasses import replace

from herdsman.herd_compat.cli.herd7opts import State, read_conf_file
from herdsman.herd_compat.cli.options import MODEL_HELP, ModelOptions, add_model_options, models_of
from herdsman.herd_compat.pipeline.config import RunConfig


def add_model_group(
    p: argparse.ArgumentParser, model: str | None = MODEL_HELP, checks: bool = True
) -> None:
    """The model group (:func:`~herd_compat.cli.options.add_model_options`, ``model`` and
    ``checks`` as there) and the model's files (:func:`add_model_files`)."""
    add_model_options(p, model=model, checks=checks)
    add_model_files(p)


def model_group_of(a: argparse.Namespace, model: str | None, checks: bool = True) -> ModelOptions:
    """The model group of :func:`add_model_group` (``model``: the model named, from
    ``--model`` or an argument), with its files."""
    return with_model_files(a, models_of(a, model, checks))


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


def with_model_files(a: argparse.Namespace, options: ModelOptions) -> ModelOptions:
    """The model group ``options`` with the model files of parsed arguments ``a`` (of
    :func:`add_model_files`): the conf file's first, then the command line's."""
    base = RunConfig()
    if a.conf:
        read_conf_file(a.conf, base, State())
    return replace(
        options,
        model=options.model or base.model,
        bell=a.bell or base.bell,
        macros=a.macros or base.macros,
        variants=base.variants | options.variants,
        include_dirs=[*base.include_dirs, *options.include_dirs],
    )
