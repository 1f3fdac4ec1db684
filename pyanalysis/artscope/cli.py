"""The `artscope` command line: argument parsing and output only.

Every command composes the library (artscope.engines, artscope.metrics,
artscope.report, artscope.configs, artscope.capture); user errors become a
one-line message on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import sys

import click

from artscope.errors import ArtscopeError


class _Group(click.Group):
    """Turns ArtscopeError into `artscope: error: ...` + exit 2."""

    def invoke(self, ctx: click.Context):  # type: ignore[override]
        try:
            return super().invoke(ctx)
        except ArtscopeError as e:
            click.echo(f"artscope: error: {e}", err=True)
            sys.exit(2)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="artscope")
def main() -> None:
    """Trustworthy per-run numbers from Perfetto traces of Android benchmarks."""


if __name__ == "__main__":  # pragma: no cover
    main()
