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


# --- on-device capture: artscope configs list|show, artscope capture ---------


@main.group("configs")
def configs_group() -> None:
    """The curated Perfetto capture configs."""


@configs_group.command("list")
def configs_list() -> None:
    """List the curated configs with a one-line summary each."""
    from artscope import configs

    infos = configs.list_configs()
    width = max((len(i.name) for i in infos), default=0)
    for info in infos:
        click.echo(f"{info.name:<{width}}  {info.summary}")


@configs_group.command("show")
@click.argument("name")
@click.option("--app", metavar="PKG", help="Package name for atrace_apps (default: all apps).")
@click.option("--duration", metavar="DUR", help="Trace length, e.g. 30s, 500ms, 2m (default 30s).")
def configs_show(name: str, app: str | None, duration: str | None) -> None:
    """Print config NAME as a TraceConfig textproto, placeholders filled."""
    from artscope import configs

    click.echo(configs.render_config(name, app=app, duration=duration), nl=False)


@main.command("capture")
@click.option("--config", "config_name", required=True, metavar="NAME", help="Curated config (see `configs list`).")
@click.option("--app", required=True, metavar="PKG", help="Package name of the benchmarked app.")
@click.option("--duration", required=True, metavar="DUR", help="Trace length, e.g. 30s, 2m.")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False), help="Where to write the trace.")
@click.option("--serial", metavar="S", help="Device serial, when several are connected.")
@click.option("--adb", "adb_path", metavar="PATH", help="adb binary (default: $ARTSCOPE_ADB, then PATH).")
def capture_cmd(
    config_name: str, app: str, duration: str, output: str, serial: str | None, adb_path: str | None
) -> None:
    """Record a trace on a device over adb and check what it holds."""
    from artscope.capture import capture

    result = capture(
        config_name, app, duration, output, serial=serial, adb=adb_path,
        log=lambda msg: click.echo(msg, err=True),
    )
    click.echo(result.describe())


if __name__ == "__main__":  # pragma: no cover
    main()
