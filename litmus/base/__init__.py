"""What every layer may import: the program IR (``ir``), the architecture records
(``arch``), reading input files (``source``) and the one-line error for bad input
(``errors``)."""
