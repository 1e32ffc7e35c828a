"""The ``scalarlang`` command: reads arguments, calls the library, prints, exits."""

from __future__ import annotations

import argparse
import sys

from . import __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="scalarlang",
        description="Reverse-mode automatic differentiation on scalars: run .sad programs or the REPL.",
    )
    parser.add_argument("--demo", action="store_true", help="print the seed chapter's demo output")
    parser.add_argument("--version", action="version", version=f"scalarlang {__version__}")
    return parser


def main(argv: list[str] | None = None) -> int:
    arguments = build_parser().parse_args(argv)
    if arguments.demo:
        from .demo import demo_lines

        sys.stdout.write("\n".join(demo_lines()) + "\n")
        return 0
    return 0
