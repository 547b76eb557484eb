"""herd7 compatibility: the ``herdsman`` command line, herd's output format, campaigns.

Each test goes through one pipeline (:mod:`~herdsman.herd_compat.pipeline`) to a typed
record holding the engine's outcome; ``herdsman run``/``herd7`` print herd's block (or
JSON) from it, and ``herdsman validate``'s workers send it to the parent, which compares
herd's block made from it with herd's own answers.
"""
