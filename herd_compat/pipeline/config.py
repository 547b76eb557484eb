"""The configuration of a run: what ``herdsman run``, ``herdsman herd7``, ``herdsman
verify`` and campaign workers parse their options into, with herd's meaning, and the
engine's options made from it."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Literal

from herdsman.engine.options import VERIFY_UNROLL, RunOptions
from herdsman.graphs.dot import PictureOptions
from herdsman.herd_compat.pipeline.limits import Limits
from herdsman.herd_compat.pipeline.progress import TerminalProgress

#: What a run reads: litmus tests (assembly or C; ``run``, ``herd7``, campaigns) or C
#: programs (``verify``).
InputKind = Literal["tests", "programs"]


@dataclass
class RunConfig:
    """Options of a run, with herd's meaning (see ``herdsman herd7 -help``).  Picklable:
    campaign workers get one."""

    tests: list[str] = field(default_factory=list)
    model: str | None = None  # None: herd's default for each test's architecture
    bell: str | None = None  # herd's -bell: a bell file run before the model
    macros: str | None = None  # herd's -macros: a .def file of C macros (cat.bell, litmus/c)
    include_dirs: list[str] = field(default_factory=list)
    variants: set[str] = field(default_factory=set)
    skipchecks: list[str] = field(default_factory=list)
    through: bool = False
    show: str | None = None  # prop | neg | all | cond | wit (None: no pictures)
    nshow: int | None = None
    outdir: str | None = None  # directory for DOT files; "-" for stdout
    suffix: str = ""
    picture: PictureOptions = field(default_factory=PictureOptions)  # -graph, -squished...
    engine: str = "auto"
    candidates: bool = False
    names: set[str] | None = None  # only these test names
    excl: set[str] = field(default_factory=set)
    conds: dict[str, tuple[str, int]] = field(default_factory=dict)
    conds_path: str = ""
    checkfilter: bool = True
    unroll: int | None = None  # None: the engine's default (herd's 2)
    archcheck: bool = True
    # --timeout (herd's -timeout: no block for a test over it) and --max-memory
    limits: Limits = field(default_factory=Limits)
    speedcheck: str = "false"  # herd's -speedcheck: false | true | fast
    hexa: bool = False  # herd's -hexa: values in hexadecimal
    # each test's progress on stderr (``run``/``herd7``); None: when stderr is a terminal
    progress: bool | None = False
    # TruSt's own options (``herdsman run``): GenMC's summary is printed after each block
    preemption_bound: int | None = None  # only executions with at most K preemptions
    print_executions: bool = False  # list every execution (with -o DIR: a DOT file each)
    json: bool = False  # ``herdsman run --json``: one JSON object per test
    # the operational engine's own options: its statistics are printed after each block
    buffer_bound: int | None = None  # store buffers of at most K writes
    stateful: bool = False  # stateful DPOR
    reduction: str = "dpor"  # dpor, or none (every run)
    herd_only: bool = False  # ``herdsman herd7``: herd's blocks and nothing else
    # C programs (``herdsman verify``): what is read, how C maps to the model's events
    # (None: by model), the preprocessor's macros and include directories, and whether
    # the search stops at the first failed assertion or data race (GenMC's default)
    inputs: InputKind = "tests"
    target: str | None = None
    defines: dict[str, str] = field(default_factory=dict)
    c_include_dirs: list[str] = field(default_factory=list)
    stop_on_error: bool = False
    # GenMC's options for C programs: functions whose loops --unroll leaves alone
    # (-no-unroll), symmetry reduction (off: -disable-sr), its writes-first schedule
    no_unroll: list[str] = field(default_factory=list)
    symmetry: bool = True
    writes_first: bool = False
    race_detection: bool = True  # off: GenMC's -disable-race-detection

    @property
    def trust_summary(self) -> bool:
        """Whether TruSt's own options are on (each block is then followed by GenMC's
        summary of the exploration)."""
        return self.preemption_bound is not None or self.print_executions

    @property
    def execution_dots(self) -> bool:
        """Whether each listed execution gets its own DOT file (``DIR/<test>-<n>.dot``,
        instead of herd's ``DIR/<test>.dot``)."""
        return self.print_executions and self.outdir not in (None, "-")

    @property
    def pictures(self) -> bool:
        """Whether the executions the engine keeps are drawn (``-o DIR`` or ``-o -``)."""
        return self.outdir is not None

    @property
    def shows_progress(self) -> bool:
        """Whether each test's progress is drawn on stderr."""
        return sys.stderr.isatty() if self.progress is None else self.progress

    def run_options(self) -> RunOptions:
        """The engine's options for one test."""
        opts = RunOptions(
            engine=self.engine,
            show=self.show,
            nshow=self.nshow,
            checkfilter=self.checkfilter,
            time_limit=self.limits.time_limit,
            preemption_bound=self.preemption_bound,
            print_executions=self.print_executions,
            executions_dot=self.execution_dots,
            buffer_bound=self.buffer_bound,
            stateful=self.stateful,
            reduction=self.reduction,
            speedcheck=self.speedcheck,
            stop_on_error=self.stop_on_error,
            # a C program's data race is an error (GenMC), unless -disable-race-detection
            races=self.inputs == "programs" and self.race_detection,
            symmetry=self.symmetry,
            writes_first=self.writes_first,
            progress=TerminalProgress(sys.stderr) if self.shows_progress else None,
        )
        if self.unroll is not None:
            opts.unroll = self.unroll
        elif self.inputs == "programs":  # C programs' loops have no bound, as GenMC's:
            opts.unroll = VERIFY_UNROLL  # only engines that enumerate eagerly need one
        return opts
