"""The reference explorer: herd's candidate enumeration, pruned while choosing.

``run`` (its entry point: the outcome of a program under a model), ``search`` (the
search over rf and co per combination of thread-execution shapes), ``combos`` (which
combinations of shapes make an execution), ``tables``
(per-skeleton tables: who may read from whom, with what value), ``skeletons`` (skeletons
from thread executions).
"""
