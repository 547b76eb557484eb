"""Campaigns of many tests: ``validate`` and ``diff`` over a durable SQLite journal, on
local worker processes or a dask cluster."""
