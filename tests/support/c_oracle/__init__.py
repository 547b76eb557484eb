"""Test oracles for the C front-end and the engines (tests only, no engine code).

``interleave``: a brute-force sequentially consistent interpreter of the program IR,
enumerating every interleaving; ``gen``: a hypothesis strategy writing small C programs.
"""
