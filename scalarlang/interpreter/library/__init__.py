"""The library of `.sad`: every built-in callable's entry (registry.py) and the compile
functions of their families, apart from the interpreter's core, which is handed it."""
