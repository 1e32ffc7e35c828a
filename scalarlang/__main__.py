"""``python -m scalarlang`` is the ``scalarlang`` command."""

from .cli import command

command()
