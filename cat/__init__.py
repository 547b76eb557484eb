"""The cat language: parse, type-check, compile and run herd7 memory models.

Pipeline: ``parser`` (lark grammar ``cat.lark``) -> ``ast`` -> ``compiler`` (runs the
instructions once, symbolically, with ``evaluator``, ``fixpoint``, ``prims``; our own
``lib/stdlib.cat`` first) -> a program of checks over the nodes of ``ir`` ->
``monotone`` (which checks can prune partial graphs) -> ``codegen`` (Python code per
model, architecture and ``specialise`` signature) -> ``runtime``.  The checker API for
engines is ``cat.api`` (``load_model``, ``Model.prepare``, ``Session.check``); the
command is ``cat.cli`` (``herdsman cat check``).  Built-in models are in ``models/``,
library files (``cos.cat``, ``cross.cat``, fences, filters) in ``lib/``.
"""
