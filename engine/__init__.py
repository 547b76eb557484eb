"""Program semantics and the explorers: ``run.run_program(program, model, opts)``.

``semantics/`` (what a thread of the program IR does one step at a time, and herd's
eager enumeration built on it), one subpackage per explorer (``reference/``: herd's
enumeration of rf and co, pruned; ``trust/``: TruSt), ``outcome`` (the :class:`Outcome`
every explorer returns), ``options`` (a run's options), ``conditions`` (final conditions
compiled over final states), ``errors`` (the time limit), ``run`` (the entry point:
which explorer runs).  Explorers ask the model through ``cat.api`` only.
"""
