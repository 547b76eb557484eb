"""Fence synthesis: critical cycles of violating executions (``cycles``), a minimum-cost
choice of placements (``solve``, z3), and the counterexample-guided loop (``synth``)
with its oracles for litmus tests and C programs (``oracles``)."""
