"""The cat language: parse, type-check, compile and run herd7 memory models.

Pipeline: ``parser`` (lark grammar ``cat.lark``) -> ``ast`` -> ``compiler`` (runs the
instructions once, symbolically, with the ``evaluator``; our own ``lib/stdlib.cat`` first;
``costandard`` recognises herd's standard co generation) -> a program of checks over the
nodes of ``ir`` -> ``monotone`` (which checks can prune partial graphs) -> ``codegen``
(Python code per model, architecture and ``specialise`` signature) -> ``runtime``.  The
checker API for engines is ``cat.api`` (``load_model``, ``Model.prepare``,
``Session.check``); the command is ``cat.cli`` (``herdsman cat check``).  Built-in models
are in ``models/``, library files (``cos.cat``, ``cross.cat``, fences, filters) in ``lib/``.

Modules, lower layers first (a module imports only from those above it in this list):

* ``ast`` — the abstract syntax, free variables; ``errors`` — model errors at a position;
  ``parser`` — cat text to ``ast``; ``pretty`` — expressions as canonical text;
  ``recursion`` — deep recursion allowed around the work;
* ``types`` — the static types of values; ``ir`` — hash-consed symbolic nodes;
  ``values`` — run-time values; ``env`` — environments and lazy bindings;
  ``symbolic`` — values holding nodes: their type, their nodes, made concrete;
* the evaluator, one layer per module: ``backend`` (state, sets and relations as ints or
  nodes, coercions, deferral to run time) -> ``operators`` (herd's operators and their
  typing) -> ``binding`` (names, closures, patterns); ``checks`` (the predicates of
  checks), ``prims`` (primitive functions), ``fixpoint`` (``let rec``), ``matching``
  (``match``), ``conditions`` (``if``, ``try``) -> ``evaluator`` (expressions,
  application);
* ``costandard`` — recognising the standard co generation; ``compiler`` — instructions to
  a program of checks; ``monotone`` — which checks prune; ``specialise`` — a program
  rewritten for the empty static relations of a skeleton; ``codegen`` — Python code;
  ``runtime`` — support of the generated code; ``api`` — the checker API; ``cli`` —
  ``herdsman cat check``;
  ``shapes`` — small candidate executions for tests and benchmarks.
"""
