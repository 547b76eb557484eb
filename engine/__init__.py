"""Program execution and candidate enumeration: ``run_test(test, model, opts)``.

Modules: ``threads`` (executing the IR of each thread, herd's dependencies; with
``arith`` and ``initial``), ``build`` (skeletons from thread executions), ``run`` (the
entry point filling ``result.TestResult``, with the explorer ``opts.engine`` names),
``outcome`` (what every explorer records: herd's counts, the ``-show`` executions, the
result), ``errors`` (the time limit).

Two explorers give the same results:

* the reference engine, herd's enumeration with pruning: ``reference`` (the search),
  ``tables`` (per-skeleton tables), ``props`` (conditions compiled over final states);
* TruSt (Kokologiannakis et al., POPL 2022): ``trust`` (its entry point and GenMC's
  summary), ``trust_program`` (threads as tries of events), ``trust_graph`` (the graph it
  grows and restricts), ``trust_explore`` (the exploration: forward steps, backward
  revisits), ``trust_consistency`` and ``trust_incremental`` (consistency checkers: the
  cat model from scratch, incremental forms of the built-in models), ``trust_tally``
  (herd's result from the complete graphs), ``trust_support`` (which models it can
  explore), ``preemption`` (preemption bounding).

Import the submodules directly; this package imports nothing eagerly, so ``engine.result``
stays light.
"""
