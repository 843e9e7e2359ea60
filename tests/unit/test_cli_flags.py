"""Each command's flags are made from its own context: its --help lists only settings it reads."""

import argparse
from dataclasses import fields

import pytest

from factcourt.bench.context import BenchContext
from factcourt.cli import build_parser, main
from factcourt.cli.shared import setting_fields
from factcourt.context.base import BaseContext
from factcourt.context.pyramid import LeaderboardContext
from factcourt.systems import SYSTEMS

# every context a command may read: a flag filling a field of one of these is a setting
CONTEXTS = {system.context for system in SYSTEMS} | {BenchContext, LeaderboardContext}
SETTINGS = {f.name for context in CONTEXTS for f in fields(context)}


def commands(parser: argparse.ArgumentParser, prefix: str = "") -> list[tuple[str, argparse.ArgumentParser]]:
    """Every command and subcommand with its parser."""
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, command in action.choices.items():
                found += [(f"{prefix}{name}", command), *commands(command, f"{prefix}{name} ")]
    return found


@pytest.mark.parametrize(
    "name, parser", commands(build_parser()), ids=lambda v: v if isinstance(v, str) else ""
)
def test_every_setting_a_command_lists_is_one_its_context_reads(name, parser):
    # a command that takes no settings flags builds the settings every run has (its --model)
    context = parser.get_default("settings_context") or BaseContext
    offered = setting_fields(parser)
    reads = {f.name for f in fields(context)}
    for dest, filled in offered.items():
        assert set(filled) <= reads, (
            f"`factcourt {name}` lists --{dest} but {context.__name__} reads no {filled}"
        )
    # a command's own option that fills a setting by its name fills one of its own context too
    own = {a.dest for a in parser._actions if a.option_strings} & SETTINGS
    assert own <= reads, (
        f"`factcourt {name}` offers {sorted(own - reads)}, which {context.__name__} does not read"
    )


def test_detect_lists_no_jury(capsys):
    with pytest.raises(SystemExit):
        main(["detect", "--help"])
    shown = capsys.readouterr().out
    for flag in (
        "--preset",
        "--protocol",
        "--jurors",
        "--juror-models",
        "--jury-judge",
        "--first-pass-theta",
    ):
        assert flag not in shown
    assert "--epsilon" in shown and "--rounds" in shown and "--model" in shown


def test_role_model_offers_the_roles_of_the_commands_own_graph(capsys, tmp_path):
    with pytest.raises(SystemExit):
        main(["detect", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert "roles: gatherer, debater, judge, refiner" in shown and "moderator" not in shown
    text = tmp_path / "text.txt"
    text.write_text("Paris is the capital of France.", encoding="utf-8")
    assert main(["check", "--role-model", "moderater=sim", "--model", "sim", str(text)]) == 2
    said = " ".join(capsys.readouterr().err.split())
    assert "unknown model role(s) ['moderater']" in said and "'moderator'" in said and "'refiner'" not in said
