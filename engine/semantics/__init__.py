"""The program semantics: what a thread of the program IR does, one step at a time.

``arith`` (register arithmetic on values, concrete or symbolic), ``state`` (thread states
and the kinds of steps), ``step`` (the step function: from a thread state, the next event
and the next state), ``paths`` (thread prefixes as a lazily grown tree, each step computed
once, for explorers), ``enumerate`` (every execution of every thread for the values its
reads may see: herd's eager enumeration, built on the step function).
"""
