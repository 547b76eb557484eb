"""Execution graphs: events, skeletons, graphs and their relations, pictures and JSON.

``events`` (the one event type), ``skeleton`` (events and their rf/co-independent
relations), ``execution`` (the execution graph explorers grow, copy and restrict, and its
relations), ``shapes`` (thread-prefix shapes and their skeletons), ``relalg`` (relations
as ints), ``herdnames`` (herd's predefined names), ``dot`` and ``jsonio`` (pictures and
JSON), ``build`` (graphs by hand).
"""
