"""The assemblers of herd's litmus tests, one module per architecture: a program cell's
text to IR operations with herd's canonical text (``cells``: what they share)."""
