"""``python -m scalarlang`` is the ``scalarlang`` command."""

from .front.cli import command

command()
