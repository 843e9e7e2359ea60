"""Each command's flags are made from its own context: its --help lists only settings it reads."""

import argparse
from dataclasses import fields

import pytest

from factcourt.bench.context import BenchContext
from factcourt.cli import build_parser, main
from factcourt.commands.shared import setting_fields, settings_values
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


@pytest.mark.parametrize(
    "name, parser",
    [(n, p) for n, p in commands(build_parser()) if "--set" in p._option_string_actions],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_every_field_of_a_commands_context_is_a_flag(name, parser):
    # a field added to a context is a flag with no second edit: made from the field itself
    context = parser.get_default("settings_context")
    offered = {
        filled for dest, fills in setting_fields(parser).items() if dest != "preset" for filled in fills
    }
    assert offered == {f.name for f in fields(context)}, f"`factcourt {name}` lacks a flag"


def test_the_published_spellings_stay():
    shown = {name: set(parser._option_string_actions) for name, parser in commands(build_parser())}
    assert {"--concurrency", "--no-cache", "--role-model", "--base-url", "--juror-models"} <= shown["check"]
    assert {"--correct", "--preset", "--protocol", "--rule", "--reader", "--jury-judge"} <= shown["check"]
    assert {"--layout", "--judge", "--epsilon", "--without"} <= shown["detect"]
    assert "--experts" in shown["pyramid"] and "--experts" in shown["leaderboard"]


def values(*argv):
    return settings_values(build_parser().parse_args(list(argv)))


def test_each_kind_of_field_parses_to_its_setting():
    got = values(
        "check",
        "x",
        "--no-evidence-first",
        "--correct",
        "--label-set",
        "three",
        "--roles",
        "Critic, Scientist",
        "--max-claims",
        "5",
        "--vote-below",
        "0.5",
        "--role-model",
        "judge=gpt-4o",
        "--model-settings",
        'big={"temperature": 0.5}',
        "--base-url",
        "http://x/v1",
    )
    assert got == {
        "evidence_first": False,
        "correct": True,
        "label_set": "three",
        "roles": ["Critic", "Scientist"],
        "max_claims": 5,
        "vote_below": 0.5,
        "role_models": {"judge": "gpt-4o"},
        "model_settings": {"big": {"temperature": 0.5}},
        "base_url": "http://x/v1",
    }
    assert values("check", "x") == {}  # a flag not given leaves the field to the context (or a preset)
    assert values("detect", "--layout", "team", "--judge", "paper", "--epsilon", "0.3") == {
        "hallucination_layout": "team",
        "hallucination_judge": "paper",
        "epsilon": 0.3,
    }
    assert values("leaderboard", "--prompts", "p", "--targets", "a", "--out", "o", "--experts", "a,b") == {
        "experts": ["a", "b"]
    }
    # with --batch, --concurrency is the rows at once (commands.batch reads it), not the claims
    assert values("check", "--batch", "rows.jsonl", "--concurrency", "3") == {}


@pytest.mark.parametrize(
    "argv, said",
    [
        (["--role-model", "judge"], "argument --role-model: takes ROLE=MODEL, not 'judge'"),
        (["--roles", "Critic,,Scientist"], "comma-separated values, none empty"),
        (["--gammas", "1,x"], "comma-separated numbers, none empty"),
        (["--rounds", "two"], "argument --rounds: invalid int value"),
    ],
)
def test_a_bad_flag_value_is_a_usage_error(argv, said, capsys):
    command = ["leaderboard", "--prompts", "p", "--targets", "a", "--out", "o"]
    with pytest.raises(SystemExit):
        build_parser().parse_args([*command, *argv])
    assert said in capsys.readouterr().err


def test_a_flag_out_of_its_fields_bounds_is_refused_as_set_refuses_it(tmp_path, capsys):
    text = tmp_path / "t.txt"
    text.write_text("Paris is in France.", encoding="utf-8")
    assert main(["check", str(text), "--model", "sim", "--search", "none", "--vote-below", "2"]) == 2
    assert "vote_below must be in [0, 1], not 2.0" in capsys.readouterr().err
