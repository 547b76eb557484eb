"""RSMC: the commit-before executor (Abdulla et al., CAV 2016), for POWER and the models
that allow no po ∪ rf cycle."""
