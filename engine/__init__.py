"""Program execution and candidate enumeration: ``run_test(test, model, opts)``.

Modules: ``threads`` (executing the IR of each thread, herd's dependencies), ``build``
(skeletons from thread executions), ``reference`` (herd's enumeration with pruning),
``run`` (the entry point filling ``result.TestResult``).  Import the submodules directly;
this package imports nothing eagerly, so ``engine.result`` stays light.
"""
