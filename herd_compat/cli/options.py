"""The option groups every command shares, each defined once: the model (``--model``, its
include directories, ``--variant``, ``--skipchecks``, ``--through``), the engine
(``--engine``, ``--unroll``, the operational engine's options), the limits
(``--timeout``, ``--max-memory``), the output (``-o``, ``--json``, ``--progress``) and a
campaign's workers (``--jobs``, ``--scheduler``, ``--dask-local``); with the readers that
check their values and give them typed.

The limits' values follow one rule in every command (README, "Limits and exit
statuses"): ``--timeout S`` is CPU seconds, a finite number from 0 to
:data:`~herd_compat.pipeline.limits.MAX_TIME_LIMIT`, 0 meaning no limit (as herd7's
``-timeout 0``); ``--max-memory MB`` is a whole number of MB from
:data:`~herd_compat.pipeline.limits.MIN_MEMORY_MB` to
:data:`~herd_compat.pipeline.limits.MAX_MEMORY_MB`, 0 meaning no bound.  Anything else
(``nan``, ``inf``, ``-1``, ``1e308``) is one usage error naming the option.  herd7's
``-timeout`` and ``-max-memory`` take the same values (:mod:`herd7opts`).
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from herdsman.cat.api import GENMC_VARIANTS
from herdsman.graphs.dot import PICTURE_FORMATS
from herdsman.herd_compat.pipeline.config import RunConfig
from herdsman.herd_compat.pipeline.limits import (
    MAX_MEMORY_MB,
    MAX_TIME_LIMIT,
    MAX_UNROLL,
    MIN_MEMORY_MB,
    Limits,
)
from herdsman.litmus.base.errors import UsageError

if TYPE_CHECKING:  # the campaigns' pools (multiprocessing) are imported by campaign commands
    from herdsman.herd_compat.campaigns.pools import Workers


class OptionError(UsageError):
    """A bad option value (unknown, missing or out of range); herd7's ``-conf`` files
    report it at its line."""


#: The most local worker processes of a campaign.
MAX_JOBS = 1024


# ----------------------------------------------------------------------------- values


def time_limit_value(text: str, option: str) -> float | None:
    """The seconds of ``option TEXT`` (None for 0: no limit), else a UsageError."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not 0 <= seconds <= MAX_TIME_LIMIT:  # nan, inf, negative, huge
        raise OptionError(
            f"{option} must be positive seconds, at most {MAX_TIME_LIMIT:.0f}, or 0 for no "
            f"limit (not '{_shown(text)}')"
        )
    return seconds or None


def memory_limit_value(text: str, option: str, least: int = MIN_MEMORY_MB) -> int | None:
    """The MB of ``option TEXT`` (None for 0: no bound), else a UsageError."""
    try:
        mb = int(text)
    except ValueError:
        mb = -1
    if mb != 0 and not least <= mb <= MAX_MEMORY_MB:
        raise OptionError(
            f"{option} must be at least {least} (MB), at most {MAX_MEMORY_MB}, or 0 for no "
            f"bound (not '{_shown(text)}')"
        )
    return mb or None


def count_value(value: int, option: str, least: int, most: int) -> int:
    """``value`` when it is from ``least`` to ``most``, else a UsageError."""
    if value < least:
        raise UsageError(
            f"{option} must be >= 0" if least == 0 else f"{option} must be at least {least}"
        )
    if value > most:
        raise UsageError(f"{option} must be at most {most} (not {_shown(str(value))})")
    return value


def _shown(text: str) -> str:
    """A value as an error message shows it: at most 40 characters."""
    return text if len(text) <= 40 else text[:37] + "..."


# ----------------------------------------------------------------------------- limits


def add_limit_options(
    p: argparse.ArgumentParser, unit: str, defaults: Limits, memory_alias: str | None = None
) -> None:
    """``--timeout S`` and ``--max-memory MB`` (and ``memory_alias`` for the latter);
    ``unit`` says what each limit bounds (``each test``, ``each model``...)."""
    p.add_argument(
        "--timeout",
        metavar="S",
        help=f"give up {unit} after S seconds of CPU (default {defaults.time_limit:g}; "
        "0: no limit); exit status 3",
    )
    names = ("--max-memory", memory_alias) if memory_alias else ("--max-memory",)
    p.add_argument(
        *names,
        dest="max_memory",
        metavar="MB",
        help=f"give up {unit} that would take the process beyond MB of memory (default "
        f"{defaults.memory_limit}; 0: no bound); exit status 3",
    )


def limits_of(a: argparse.Namespace, defaults: Limits) -> Limits:
    """The limits the options of :func:`add_limit_options` give (``defaults`` where
    absent)."""
    time_limit = defaults.time_limit
    if a.timeout is not None:
        time_limit = time_limit_value(a.timeout, "--timeout")
    memory_limit = defaults.memory_limit
    if a.max_memory is not None:
        memory_limit = memory_limit_value(a.max_memory, "--max-memory")
    return Limits(time_limit, memory_limit)


# ----------------------------------------------------------------------------- model

#: The tags herd7's ``-variant`` accepts (herd's ``Variant.parse``, with its spellings;
#: also ``tNN``).  Any other tag is refused, as herd7 refuses it.
VARIANT_TAGS = frozenset(
    """success instr specialx0 amox0 x0 normw acqrelasfence backcompat back fullscdepend
    scdepend splittedrmw switchdepscwrite switchdepscresult lrscdiffok mixed unaligned
    dontcheckmixed notweakpredicated notweakpred tagmem memtag mte toofar morello neon deps
    instances instance kvm vmsa ets ets2 exs eis eos noptebranch nobranch pte2 pte-squared
    phantomonload optrfrmw constrainedunpredictable cu exp ifetch self dic idc cos-opt test
    asl asl_aarch64 aslaarch64 asl+aarch64 aslv0 asl0 asl_0 aslv1 asl1 asl_1 asltype+warn
    asltype+silence asltype+check asl+experimental asl+exp s128 strict warn telechat nv2
    fatal skip handled synchronous sync asynchronous async asymmetric asym lkmmv1 lkmmv2""".split()
)


def variant_tags(
    text: str, option: str = "-variant", known: frozenset[str] = VARIANT_TAGS
) -> set[str]:
    """The tags of one ``-variant`` argument (comma or space separated), each one herd7
    knows (``known``; else an :class:`OptionError`, as herd7 says it)."""
    tags = {t for t in text.replace(",", " ").split() if t}
    for t in sorted(tags):
        low = t.lower()
        if low not in known and not (len(low) == 3 and low[0] == "t" and low[1:].isdigit()):
            raise OptionError(f"{t} is a bad tag for {option} (tags: {', '.join(sorted(known))})")
    return tags


#: The tags herdsman's ``--variant`` accepts: herd7's and the built-in models' own
#: (``genmc-rs``, ``genmc-sc``: GenMC's release sequences and SC order in rc11 and ra).
HERDSMAN_VARIANT_TAGS = VARIANT_TAGS | frozenset(GENMC_VARIANTS)


def variant_options(values: list[str], option: str = "--variant") -> set[str]:
    """The tags of repeated ``--variant`` options of herdsman's commands."""
    return {t for v in values for t in variant_tags(v, option, HERDSMAN_VARIANT_TAGS)}


@dataclass(frozen=True)
class ModelOptions:
    """The model group: the model (None: herd's default per architecture), its include
    directories, variant tags, checks skipped, whether failing executions go through, and
    herd's bell and macro files (``cli.model_files``)."""

    model: str | None
    include_dirs: list[str] = field(default_factory=list)
    variants: set[str] = field(default_factory=set)
    skipchecks: list[str] = field(default_factory=list)
    through: bool = False
    bell: str | None = None
    macros: str | None = None

    def into(self, cfg: RunConfig) -> RunConfig:
        """``cfg`` with this model group."""
        cfg.model = self.model
        cfg.include_dirs = list(self.include_dirs)
        cfg.variants = set(self.variants)
        cfg.skipchecks = list(self.skipchecks)
        cfg.through = self.through
        cfg.bell = self.bell
        cfg.macros = self.macros
        return cfg


#: ``--model``'s help.
MODEL_HELP = "built-in model name or .cat file (default per arch)"


def add_model_options(
    p: argparse.ArgumentParser,
    model: str | None = MODEL_HELP,
    default: str | None = None,
    required: bool = False,
    include: str = "-I",
    checks: bool = True,
) -> None:
    """``--model``/``-m`` (with help ``model``; None: the command takes its models as
    arguments), the cat include directories (``include``: ``-I``, or ``--cat-include``
    where ``-I`` is the C preprocessor's), ``--variant`` and, with ``checks``,
    ``--skipchecks`` and ``--through``."""
    if model is not None:
        p.add_argument("--model", "-m", default=default, required=required, help=model)
    p.add_argument(
        include,
        dest="cat_include",
        action="append",
        default=[],
        metavar="DIR",
        help="cat include directory (repeatable)",
    )
    p.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="V",
        help="variant tags, comma separated (repeatable)",
    )
    if checks:
        p.add_argument("--skipchecks", action="append", default=[], metavar="N1,N2")
        p.add_argument("--through", action="store_true", help="let failing executions through")


def models_of(a: argparse.Namespace, model: str | None, checks: bool = True) -> ModelOptions:
    """The model group of :func:`add_model_options` (``model``: the model named, from
    ``--model`` or an argument)."""
    variants = variant_options(a.variant)
    if not checks:
        return ModelOptions(model, list(a.cat_include), variants)
    skip = [t for s in a.skipchecks for t in s.split(",") if t]
    return ModelOptions(model, list(a.cat_include), variants, skip, a.through)


# ----------------------------------------------------------------------------- engine


def add_engine_options(
    p: argparse.ArgumentParser,
    unroll_help: str | None = None,
    unroll: int | None = None,
    operational: bool = False,
) -> None:
    """``--engine``; with ``unroll_help``, ``--unroll N`` (default ``unroll``; None: the
    engine's, herd's 2); with ``operational``, the operational engine's
    ``--buffer-bound``, ``--stateful`` and ``--reduction``."""
    from herdsman.engine.options import ENGINES, REDUCTIONS

    p.add_argument("--engine", choices=ENGINES, default="auto")
    if unroll_help is not None:
        shown = "herd's 2" if unroll is None else str(unroll)
        p.add_argument(
            "--unroll",
            type=int,
            default=unroll,
            metavar="N",
            help=f"{unroll_help} (default {shown}; at most {MAX_UNROLL})",
        )
    if not operational:
        return
    p.add_argument(
        "--buffer-bound",
        type=int,
        metavar="K",
        help="operational engine: store buffers of at most K writes (a full one waits)",
    )
    p.add_argument(
        "--stateful",
        action="store_true",
        help="operational engine: stateful DPOR (loops need no bound when states repeat; "
        "give --timeout when they may not)",
    )
    p.add_argument(
        "--reduction",
        choices=REDUCTIONS,
        default="dpor",
        help="operational engine: DPOR with sleep sets (default) or every run (none)",
    )


def unroll_of(a: argparse.Namespace) -> int | None:
    """``--unroll``, checked."""
    return None if a.unroll is None else count_value(a.unroll, "--unroll", 0, MAX_UNROLL)


def engine_into(a: argparse.Namespace, cfg: RunConfig, operational: bool = False) -> RunConfig:
    """``cfg`` with the engine group of :func:`add_engine_options` with ``--unroll``
    (checked: the operational engine's options need it)."""
    cfg.engine = a.engine
    cfg.unroll = unroll_of(a)
    if not operational:
        return cfg
    own = a.buffer_bound is not None or a.stateful or a.reduction != "dpor"
    if own and a.engine != "operational":
        raise UsageError("--buffer-bound, --stateful and --reduction need --engine operational")
    if a.buffer_bound is not None and a.buffer_bound < 0:
        raise UsageError("--buffer-bound must be >= 0")
    cfg.buffer_bound = a.buffer_bound
    cfg.stateful = a.stateful
    cfg.reduction = a.reduction
    return cfg


# ----------------------------------------------------------------------------- output


def add_output_options(
    p: argparse.ArgumentParser,
    outdir: str | None = None,
    json: str | None = None,
    json_file: bool = False,
    progress: str | None = None,
    pictures: str | None = None,
) -> None:
    """``-o``/``--outdir DIR``, ``--format dot|svg|png`` (how ``-o DIR`` files
    ``pictures``), ``--json`` (a flag: JSON on stdout; with ``json_file``: ``--json FILE``)
    and ``--progress``/``--no-progress``, each with its help (None: the command has no
    such option)."""
    if outdir is not None:
        p.add_argument("-o", "--outdir", metavar="DIR", help=outdir)
    if pictures is not None:
        p.add_argument(
            "--format",
            choices=PICTURE_FORMATS,
            default="dot",
            help=f"pictures with -o DIR: {pictures} (svg, png: drawn by herdsman)",
        )
    if json is not None and json_file:
        p.add_argument("--json", dest="json_out", metavar="FILE", help=json)
    elif json is not None:
        p.add_argument("--json", action="store_true", help=json)
    if progress is not None:
        p.add_argument(
            "--progress",
            action=argparse.BooleanOptionalAction,
            default=None,
            help=f"{progress} (default: when stderr is a terminal)",
        )


# ----------------------------------------------------------------------------- workers


def add_worker_options(p: argparse.ArgumentParser) -> None:
    """``--jobs`` and the dask options of a campaign command (each worker's memory is
    ``--max-memory``, :func:`add_limit_options`)."""
    from herdsman.herd_compat.campaigns.pools import DEFAULT_CONNECT_TIMEOUT

    p.add_argument("--jobs", "-j", type=int, metavar="N", help="local worker processes (default 1)")
    dask = p.add_argument_group("on a dask cluster (instead of --jobs local processes)")
    where = dask.add_mutually_exclusive_group()
    where.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="the scheduler of a running dask cluster, e.g. tcp://host:8786 (its workers "
        "run with --nthreads 1, have herdsman installed and see the tests' paths)",
    )
    where.add_argument(
        "--dask-local",
        type=int,
        metavar="N",
        help="a dask cluster of N worker processes on this machine, each with --max-memory "
        "MB of resident memory (dask's limit: beyond it the worker is restarted, its test lost)",
    )
    dask.add_argument(
        "--connect-timeout",
        metavar="SECONDS",
        help="how long to wait for the scheduler and a first worker (default "
        f"{DEFAULT_CONNECT_TIMEOUT:g})",
    )


#: What ``--max-memory`` bounds in a campaign.
WORKER_MEMORY_HELP = "each worker"


def workers_of(a: argparse.Namespace) -> Workers:
    """The :class:`Workers` the options of :func:`add_worker_options` ask for (a
    :class:`UsageError` for a contradictory or out-of-range choice); ``--max-memory``
    (of :func:`add_limit_options`) is checked against them."""
    from herdsman.herd_compat.campaigns.pools import (
        DEFAULT_CONNECT_TIMEOUT,
        MIN_DASK_WORKER_MB,
        Workers,
    )

    if a.scheduler is None and a.dask_local is None:
        if a.connect_timeout is not None:
            raise UsageError("--connect-timeout needs --scheduler or --dask-local")
        if a.jobs is not None:
            count_value(a.jobs, "--jobs", 1, MAX_JOBS)
    elif a.jobs is not None:
        raise UsageError("--jobs runs local worker processes: not with --scheduler or --dask-local")
    if a.dask_local is not None:
        count_value(a.dask_local, "--dask-local", 1, MAX_JOBS)
    if a.scheduler is not None and a.max_memory is not None:
        raise UsageError(
            "--max-memory is the local workers' memory: with --scheduler, the dask workers' "
            "own --memory-limit applies"
        )
    if a.dask_local is not None and a.max_memory is not None:
        memory_limit_value(a.max_memory, "--max-memory", MIN_DASK_WORKER_MB)
    connect = DEFAULT_CONNECT_TIMEOUT
    if a.connect_timeout is not None:
        seconds = time_limit_value(a.connect_timeout, "--connect-timeout")
        if seconds is None:
            raise UsageError("--connect-timeout must be positive")
        connect = seconds
    return Workers(
        jobs=a.jobs or 1,
        scheduler=a.scheduler,
        dask_local=a.dask_local,
        connect_timeout=connect,
    )
