"""herd's and GenMC's texts: herd's per-test block and logs, comparing them, ``-conds``,
GenMC's and the engines' summaries, error traces, and the files pictures go to."""
