"""herd7's command-line options (``herdsman herd7 ...``), with herd's meaning.

herd's options are single-dash words, each followed by its argument when it takes one
(``-model ppc.cat``, ``-show prop``, ``-candidates true``); ``-conf FILE`` reads more
options from a file (lines ``key value``, ``#`` comments); ``@FILE`` arguments are index
files.  The everyday subset is supported; any other option is a clear error, never
silently ignored.  See herd-formats.md section 4.4 and ``herd/herd.ml``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from herdsman.engine.options import ENGINES, SPEEDCHECKS
from herdsman.engine.outcome import SHOW_MODES
from herdsman.graphs.dot import DRAWABLE, GRAPH_MODES, PICTURE_FORMATS, SHOW_EVENTS
from herdsman.graphs.render import LAYOUTS
from herdsman.herd_compat.cli.options import (
    OptionError,
    count_value,
    memory_limit_value,
    time_limit_value,
    variant_tags,
)
from herdsman.herd_compat.pipeline.config import RunConfig
from herdsman.herd_compat.pipeline.inputs import expand_test_args, read_conds, read_names
from herdsman.herd_compat.pipeline.limits import MAX_UNROLL, RUN_LIMITS
from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.source import MAX_LIST_BYTES, read_text


@dataclass(frozen=True)
class Opt:
    arg: str  # "" (no argument), "str", "int", "float", "bool", "tag"
    apply: Callable[[RunConfig, object, State], None]
    help: str
    choices: tuple[str, ...] = ()
    fold: bool = False  # a tag in any case (herd lowercases -speedcheck's)


class State:
    """Parsing state beyond RunConfig: version/help requests, conf nesting."""

    def __init__(self) -> None:
        self.version = False
        self.help = False
        self.conf_stack: list[str] = []
        self.conf_reads = 0  # -conf files read so far
        self.test_args: list[str] = []
        self.viewer = False  # -gv or -evince was given


def _bool(text: str) -> bool:
    low = text.lower()
    if low in ("true", "yes", "1"):
        return True
    if low in ("false", "no", "0"):
        return False
    raise OptionError(f"expected true or false, found '{text}'")


def _set(attr: str) -> Callable[[RunConfig, object, State], None]:
    return lambda cfg, v, st: setattr(cfg, attr, v)


def _near_conf(spec: str, st: State) -> str:
    """A file named in a conf file: relative to the conf file's directory when it is
    there, else as given (looked for in the current directory and ``-I`` directories)."""
    if st.conf_stack and not os.path.isabs(spec):
        cand = os.path.join(os.path.dirname(st.conf_stack[-1]), spec)
        if os.path.exists(cand):
            return cand
    return spec


def _model(cfg: RunConfig, v: object, st: State) -> None:
    cfg.model = _near_conf(str(v), st)


def _bell(cfg: RunConfig, v: object, st: State) -> None:
    cfg.bell = _near_conf(str(v), st)


def _macros(cfg: RunConfig, v: object, st: State) -> None:
    cfg.macros = _near_conf(str(v), st)


def _include(cfg: RunConfig, v: object, st: State) -> None:
    """A conf file's ``include DIR``: a search directory, as ``-I``."""
    cfg.include_dirs.append(_near_conf(str(v), st))


def _local_conf(cfg: RunConfig, v: object, st: State) -> None:
    """A conf file's ``local-conf FILE``: read FILE, relative to the conf file."""
    base = os.path.dirname(st.conf_stack[-1]) if st.conf_stack else "."
    read_conf_file(os.path.join(base, str(v)), cfg, st)


def _variants(cfg: RunConfig, v: object, st: State) -> None:
    cfg.variants |= variant_tags(str(v))


def _skipchecks(cfg: RunConfig, v: object, st: State) -> None:
    cfg.skipchecks += [t for t in str(v).split(",") if t]


def _show(cfg: RunConfig, v: object, st: State) -> None:
    cfg.show = None if v == "none" else str(v)


def _through(cfg: RunConfig, v: object, st: State) -> None:
    cfg.through = v in ("all", "invalid")  # for cat models both mean the same (herd)


def _names(cfg: RunConfig, v: object, st: State) -> None:
    cfg.names = (cfg.names or set()) | read_names(str(v))


def _excl(cfg: RunConfig, v: object, st: State) -> None:
    cfg.excl |= read_names(str(v))


def _conds(cfg: RunConfig, v: object, st: State) -> None:
    cfg.conds.update(read_conds(str(v)))
    cfg.conds_path = str(v)


def _speedcheck(cfg: RunConfig, v: object, st: State) -> None:
    cfg.speedcheck = str(v)


def _optace(cfg: RunConfig, v: object, st: State) -> None:
    if v == "true":  # herd: also sets variant cos-opt
        cfg.variants.add("cos-opt")


def _showone(cfg: RunConfig, v: object, st: State) -> None:
    if v:
        cfg.nshow = 1


def _conf(cfg: RunConfig, v: object, st: State) -> None:
    read_conf_file(str(v), cfg, st)


def _version(cfg: RunConfig, v: object, st: State) -> None:
    st.version = True


def _help(cfg: RunConfig, v: object, st: State) -> None:
    st.help = True


def _timeout(cfg: RunConfig, v: object, st: State) -> None:
    """``-timeout S``: as every command's ``--timeout`` (0: no limit, as herd7's)."""
    seconds = time_limit_value(str(v), "-timeout")
    cfg.limits = replace(cfg.limits, time_limit=seconds)


def _max_memory(cfg: RunConfig, v: object, st: State) -> None:
    """``-max-memory MB``: as every command's ``--max-memory`` (0: no bound)."""
    mb = memory_limit_value(str(v), "-max-memory")
    cfg.limits = replace(cfg.limits, memory_limit=mb)


def _unroll(cfg: RunConfig, v: object, st: State) -> None:
    assert isinstance(v, int)  # an "int" option
    cfg.unroll = count_value(v, "-unroll", 0, MAX_UNROLL)


def _picture(attr: str) -> Callable[[RunConfig, object, State], None]:
    """An option of herd's pictures (``-graph``, ``-squished``...)."""

    def apply(cfg: RunConfig, v: object, st: State) -> None:
        change: dict[str, Any] = {attr: v}  # a value of the type the option converts to
        cfg.picture = replace(cfg.picture, **change)

    return apply


def _edgeattr(cfg: RunConfig, v: object, st: State) -> None:
    """``-edgeattr label,attribute,value``: an attribute of the edges of that label."""
    parts = [x.strip() for x in str(v).split(",")]
    if len(parts) != 3 or not all(parts):
        raise OptionError(f"-edgeattr expects label,attribute,value, found '{v}'")
    attrs = (*cfg.picture.edge_attrs, (parts[0], parts[1], parts[2]))
    cfg.picture = replace(cfg.picture, edge_attrs=attrs)


def _dotmode(cfg: RunConfig, v: object, st: State) -> None:
    """herd's ``-dotmode``: ``plain`` text in pictures (herd's default); herd's ``fig``
    (labels escaped for TeX in xfig) is not drawn by herdsman."""
    if v == "fig":
        raise OptionError("-dotmode fig: herdsman writes plain labels (-dotmode plain)")


def _relations(attr: str) -> Callable[[RunConfig, object, State], None]:
    """``-doshow`` / ``-unshow``: relation names, comma or space separated, cumulative."""

    def apply(cfg: RunConfig, v: object, st: State) -> None:
        names = frozenset(str(v).replace(",", " ").split())
        if attr == "doshow":
            unknown = sorted(names - set(DRAWABLE))
            if unknown:
                raise OptionError(
                    f"-doshow {', '.join(unknown)}: herdsman draws the relations the model "
                    f"shows and {', '.join(DRAWABLE)}"
                )
        pic = cfg.picture
        if attr == "doshow":
            cfg.picture = replace(pic, doshow=pic.doshow | names)
        else:
            cfg.picture = replace(pic, unshow=pic.unshow | names)

    return apply


def _viewer(cfg: RunConfig, v: object, st: State) -> None:
    """``-gv``/``-evince``: herd opens a viewer; herdsman writes the pictures instead."""
    if v is True or v is None:
        st.viewer = True


OPTIONS: dict[str, Opt] = {
    "-model": Opt("str", _model, "<file.cat|name> model (default per architecture)"),
    "-cat": Opt("str", _model, "<file.cat|name> alias of -model"),
    "-I": Opt("str", lambda c, v, s: c.include_dirs.append(str(v)), "<dir> add to search path"),
    "-bell": Opt("str", _bell, "<file> read bell file (run before the model)"),
    "-macros": Opt("str", _macros, "<file> read macro (.def) file (C tests)"),
    "-variant": Opt("str", _variants, "<tags> variant tags (comma separated, cumulative)"),
    "-show": Opt("tag", _show, "executions to draw", SHOW_MODES),
    "-hexa": Opt("bool", _set("hexa"), "<bool> print values in hexadecimal"),
    "-nshow": Opt("int", _set("nshow"), "<n> draw at most n executions"),
    "-showone": Opt("bool", _showone, "<bool> alias of -nshow 1"),
    "-o": Opt("str", _set("outdir"), "<dir> write <dir>/<test>.dot ('-': stdout)"),
    "-suffix": Opt("str", _set("suffix"), "<suf> suffix of DOT file names"),
    "-through": Opt("tag", _through, "let failing executions through", ("all", "invalid", "none")),
    "-skipchecks": Opt("str", _skipchecks, "<n1,n2> checks to skip (cumulative)"),
    "-skipcheck": Opt("str", _skipchecks, "<name> check to skip (cumulative)"),
    "-conf": Opt("str", _conf, "<file> read options from file"),
    "-conds": Opt("str", _conds, '<file> replace conditions (lines: NAME "condition")'),
    "-names": Opt("str", _names, "<file> run only the tests named in file"),
    "-excl": Opt("str", _excl, "<file> skip the tests named in file"),
    "-speedcheck": Opt(
        "tag",
        _speedcheck,
        "only executions settling the condition; fast: stop at the first",
        SPEEDCHECKS,
        fold=True,
    ),
    "-candidates": Opt("bool", _set("candidates"), "<bool> print the Candidates line"),
    "-optace": Opt("tag", _optace, "true adds variant cos-opt", ("false", "true", "iico")),
    "-unroll": Opt("int", _unroll, "<n> backward-jump unrolling bound (default 2)"),
    "-checkfilter": Opt("bool", _set("checkfilter"), "<bool> apply the test's filter"),
    "-archcheck": Opt("bool", _set("archcheck"), "<bool> check model/test architectures"),
    "-timeout": Opt(
        "str",
        _timeout,
        f"<s> give up a test after s CPU seconds (0: none; {RUN_LIMITS.time_limit:g})",
    ),
    "-engine": Opt("tag", _set("engine"), "herdsman's engine choice", ENGINES),
    "-progress": Opt("bool", _set("progress"), "<bool> each test's progress on stderr (herdsman)"),
    "-max-memory": Opt(
        "str",
        _max_memory,
        f"<mb> give up a test beyond mb MB (herdsman; {RUN_LIMITS.memory_limit})",
    ),
    "-graph": Opt("tag", _picture("graph"), "picture layout", GRAPH_MODES),
    "-showevents": Opt("tag", _picture("show_events"), "events drawn", SHOW_EVENTS),
    "-squished": Opt("bool", _picture("squished"), "<bool> short event labels"),
    "-showinitwrites": Opt("bool", _picture("show_init_writes"), "<bool> draw initial writes"),
    "-showthread": Opt("bool", _picture("show_thread"), "<bool> label the threads"),
    "-fontsize": Opt("int", _picture("fontsize"), "<n> font size in pictures"),
    "-arrowsize": Opt("float", _picture("arrowsize"), "<f> arrow size in pictures"),
    "-splines": Opt("str", _picture("splines"), "<tag> Graphviz splines attribute"),
    "-pad": Opt("float", _picture("pad"), "<f> Graphviz pad attribute"),
    "-xscale": Opt("float", _picture("xscale"), "<f> horizontal spacing of -graph columns"),
    "-yscale": Opt("float", _picture("yscale"), "<f> vertical spacing of -graph columns"),
    "-movelabel": Opt("bool", _picture("movelabel"), "<bool> edge labels at their tail"),
    "-showinitrf": Opt("bool", _picture("show_init_rf"), "<bool> rf from hidden initial writes"),
    "-showfinalrf": Opt("bool", _picture("show_final_rf"), "<bool> rf to the final state"),
    "-edgeattr": Opt("str", _edgeattr, "<label,attr,value> attribute of edges (cumulative)"),
    "-doshow": Opt("str", _relations("doshow"), "<r1,r2> relations to draw too"),
    "-unshow": Opt("str", _relations("unshow"), "<r1,r2> relations not to draw"),
    "-dotcom": Opt("tag", _picture("layout"), "Graphviz program placing events", LAYOUTS),
    "-dotmode": Opt("tag", _dotmode, "text in pictures (plain only)", ("plain", "fig")),
    "-format": Opt("tag", _picture("format"), "-o DIR files: DOT text or images", PICTURE_FORMATS),
    "--format": Opt("tag", _picture("format"), "alias of -format", PICTURE_FORMATS),
    "-gv": Opt("", _viewer, "herd opens gv; herdsman writes the pictures (-o DIR, -o -)"),
    "-evince": Opt("", _viewer, "herd opens evince; herdsman writes the pictures"),
    "-version": Opt("", _version, "print the version and exit"),
    "-q": Opt("", lambda c, v, s: None, "quiet (herd's default here)"),
    "-help": Opt("", _help, "this help"),
    "--help": Opt("", _help, "this help"),
}


def _convert(name: str, opt: Opt, text: str) -> object:
    try:
        if opt.arg == "int":
            return int(text)
        if opt.arg == "float":
            return float(text)
    except ValueError:
        raise OptionError(f"option {name}: expected a number, found '{text}'") from None
    if opt.arg == "bool":
        try:
            return _bool(text)
        except OptionError as e:
            raise OptionError(f"option {name}: {e}") from None
    if opt.fold:
        text = text.lower()
    if opt.arg == "tag" and text not in opt.choices:
        raise OptionError(f"option {name}: '{text}' is not one of {', '.join(opt.choices)}")
    return text


#: Keys only a conf file has (``include DIR``, ``local-conf FILE``).
CONF_KEYS: dict[str, Opt] = {
    "-include": Opt("str", _include, "<dir> add to search path"),
    "-local-conf": Opt("str", _local_conf, "<file> read options from file, next to this one"),
}


def apply_option(
    cfg: RunConfig, st: State, name: str, value: str | None, conf: bool = False
) -> None:
    opt = OPTIONS.get(name) or (CONF_KEYS.get(name) if conf else None)
    if opt is None:
        raise OptionError(f"unknown option '{name}' (see herdsman herd7 -help)")
    if not opt.arg:
        opt.apply(cfg, None, st)
    elif value is None:
        raise OptionError(f"option {name} needs an argument")
    else:
        opt.apply(cfg, _convert(name, opt, value), st)


#: How deep ``-conf`` files may name one another, and how many one command line may read
#: in all (a file naming the next one twice, 26 deep, would read 2^26).
MAX_CONF_DEPTH = 64
MAX_CONF_FILES = 1000


def read_conf_file(path: str, cfg: RunConfig, st: State) -> None:
    """Apply a herd configuration file: lines ``key value`` mean ``-key value``."""
    if os.path.realpath(path) in map(os.path.realpath, st.conf_stack):
        raise InputError(path, 0, 0, "configuration file includes itself")
    if len(st.conf_stack) >= MAX_CONF_DEPTH:
        raise InputError(path, 0, 0, f"-conf files nested more than {MAX_CONF_DEPTH} deep")
    st.conf_reads += 1
    if st.conf_reads > MAX_CONF_FILES:
        raise InputError(path, 0, 0, f"more than {MAX_CONF_FILES} -conf files read in all")
    lines = read_text(path, MAX_LIST_BYTES, "configuration files").split("\n")
    st.conf_stack.append(path)
    try:
        for n, line in enumerate(lines, 1):
            s = line.split("#", 1)[0].strip()
            if not s:
                continue
            key, _, value = s.partition(" ")
            col = len(line) - len(line.lstrip()) + 1
            try:
                apply_option(cfg, st, "-" + key.lstrip("-"), value.strip() or None, conf=True)
            except OptionError as e:
                raise InputError(path, n, col, str(e)) from None
    finally:
        st.conf_stack.pop()


def parse_herd7_args(argv: list[str]) -> tuple[RunConfig, State]:
    """RunConfig from herd7-style arguments (tests expanded, ``@index`` read)."""
    cfg = RunConfig(herd_only=True, progress=None, limits=RUN_LIMITS)
    st = State()
    i = 0
    while i < len(argv):
        a = argv[i]
        if a.startswith("-") and a != "-" and not _is_number(a):
            opt = OPTIONS.get(a)
            if opt is None:
                raise OptionError(f"unknown option '{a}' (see herdsman herd7 -help)")
            value = None
            if opt.arg:
                if i + 1 >= len(argv):
                    raise OptionError(f"option {a} needs an argument")
                value = argv[i + 1]
                i += 1
            apply_option(cfg, st, a, value)
        else:
            st.test_args.append(a)
        i += 1
    cfg.tests = expand_test_args(st.test_args, allow_dirs=False)
    return cfg, st


def _is_number(a: str) -> bool:
    try:
        float(a)
        return True
    except ValueError:
        return False


def help_text() -> str:
    lines = ["usage: herdsman herd7 [options] TEST... (@FILE: an index of tests)", "", "options:"]
    for name, opt in OPTIONS.items():
        arg = {"": "", "tag": "<" + "|".join(opt.choices) + ">"}.get(opt.arg, "")
        left = f"  {name} {arg}".rstrip()
        if len(left) >= 33:
            left += "\n" + " " * 34
        lines.append(left.ljust(34) + opt.help)
    return "\n".join(lines) + "\n"
