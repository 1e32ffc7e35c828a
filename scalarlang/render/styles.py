"""The palette: the rich style of each kind of text we print (labels, errors, notes, table
headers), shared by the tables, the value lines and diagnostics, and the REPL's messages."""

STYLES = {
    "label": "bold cyan",
    "number": "",
    "dim": "dim",
    "error": "bold red",
    "warning": "bold yellow",
    "arrow": "bold blue",
    "caret": "bold red",
    "note": "bold",
    "ok": "green",
    "header": "bold",
    # a diff (scalarlang test): lines of the golden, of the output now, and hunk headers
    "removed": "red",
    "added": "green",
    "hunk": "cyan",
}
