"""TruSt (Kokologiannakis et al., POPL 2022): optimal, truly stateless exploration.

``run`` (its entry point: the outcome of a program under a model), ``explore`` (the
exploration: forward steps, backward revisits), ``graph`` (the graph it grows and
restricts, with each thread's place in its program), ``tally`` (the outcome from the
complete graphs), ``support`` (which models it can explore), ``preemption`` (Buster's
preemption bounding).  Consistency is the model's (``cat.api.ConsistencyChecker``).
"""
