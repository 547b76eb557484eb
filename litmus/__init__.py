"""Front-ends and the program IR: litmus tests (PPC, X86) and what programs mean.

``ir`` (the program IR: operations, threads, programs, final conditions), ``arch`` (one
record per architecture: every architecture fact), ``test`` (a litmus test as written),
``parser`` (``parse_file``, ``parse_text``: herd's litmus format, with ``splitter``,
``state``, ``table``, and the assemblers ``ppc``, ``x86``, ``asm``), ``lower`` (a test's
program), ``printer`` and ``hash`` (herd's text and hash of a test), ``jsonir`` (a test as
JSON), ``errors`` (one-line input errors), ``cli`` (``herdsman parse``).
"""
