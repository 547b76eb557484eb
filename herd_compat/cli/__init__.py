"""The ``herdsman`` command line: one module per command, the shared option groups, and
herd7's own options."""
