"""The ``herdsman`` command line: one module per command, the shared option groups, and
herd7's own options."""

#: herdsman's version, as ``herdsman --version`` and ``herdsman herd7 -version`` print it.
VERSION = "0.1.0"

#: The commands, each with what it does (``herdsman --help``, each command's own help).
COMMANDS = {
    "parse": "parse litmus tests and print them normalised (or as JSON)",
    "cat": "cat models: 'herdsman cat check MODEL...' parses and type-checks them",
    "run": "run litmus tests under a model, printing herd's output blocks",
    "herd7": "run tests with herd7's own command-line options",
    "validate": "run a campaign and compare with herd's log or verdict table",
    "verify": "check C programs' assertions under a model, as GenMC does (exit 42: unsafe)",
    "fences": "insert the fewest fences that make a C program or litmus test safe (z3)",
    "explain": "why a model forbids (or allows) a final state: candidates, failing check, cycle",
    "diff": "run two models on many tests and explain where their answers differ",
    "serve": "the workbench in a browser: run, draw, explain and diff (http://127.0.0.1:8000/)",
}
