"""The operational engine: store buffers as shadow threads, DPOR, buffer bounding and
stateful DPOR (see :mod:`engine.operational.run`)."""
