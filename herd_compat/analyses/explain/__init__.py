"""``herdsman explain``: the candidate executions giving a state (``candidates``), the
violated check's cycle named by the model's relations (``witness``), and the report."""
