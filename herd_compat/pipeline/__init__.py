"""One test through herdsman: a file to a program for a model (``load``), the model
(``models``), the run under its limits (``limits``) to a typed record (``run_file``), with
the run's configuration (``config``) and where its tests come from (``inputs``)."""
