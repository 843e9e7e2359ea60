"""What every ``factcourt`` command shares: consoles, input, settings, progress, output.

Each system's command (``commands.claims``, ``commands.hallucination``, ``commands.audit``, ...)
and the program's own groups (``factcourt.cli``) build on these, so they live below all of them.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import MISSING, Field, dataclass, fields
from pathlib import Path
from types import UnionType
from typing import Any, Literal, TypeVar, get_args, get_origin, get_type_hints

from pydantic import BaseModel
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from factcourt.context.base import BaseContext, Flag
from factcourt.context.claims import PRESETS
from factcourt.errors import ConfigError, FactcourtError
from factcourt.inputs import decode, read_text_file, strip_controls
from factcourt.metrics.cost import Prices
from factcourt.progress import Progress
from factcourt.state.records import Result, Usage
from factcourt.terminal import Console, json_text

err = Console(stderr=True)
out = Console()


def fail(sentence: str) -> None:
    """Print a failure's one sentence, escaped.

    It holds user text (file names, claims, a model's words): '[red]' or 'a[i]' in it is shown,
    not read as console markup.
    """
    err.print(f"[red]error:[/] {escape(sentence)}", highlight=False)


def exit_code(result: Result) -> int:
    """0 for a full success; 1, with one sentence, when any part failed."""
    if reason := result.failure():
        fail(reason)
        return 1
    return 0


def print_usage(usage: Usage, more: str = "") -> None:
    """A run's cost in one dim line: model calls, tokens, searches (and ``more``)."""
    out.print(
        f"[dim]{usage.calls} model calls{f' ({usage.failed} failed)' if usage.failed else ''}, "
        f"{usage.input_tokens} input + {usage.output_tokens} output "
        f"tokens, {usage.search_calls} searches{', ' + more if more else ''}[/]"
    )


def read_text(source: str) -> str:
    """Read UTF-8 text from a file or '-' (standard input); a wrong encoding is a clear error.

    Terminal escape sequences and control characters are taken out: they are no text to check.
    """
    if source == "-":
        if sys.stdin.isatty():
            err.print("[dim]reading the text from standard input; end it with Ctrl-D[/]")
        return strip_controls(decode(sys.stdin.buffer.read(), "standard input"))
    return strip_controls(read_text_file(Path(source)))


def number(cast: Callable[[str], float], least: float, *, above: bool = False) -> Callable[[str], Any]:
    """An argparse type: a finite ``cast`` (int or float) from ``least``, or above it when ``above``.

    ``float()`` reads 'nan', 'inf' and '-1' as numbers: a NaN passes every range check, an
    infinite wait hangs and a negative price or latency gives a table of nonsense.
    """
    kind = "a whole number" if cast is int else "a number"
    bound = f"{'above' if above else 'from'} {least:g}"

    def parse(value: str) -> Any:
        try:
            found = cast(value)
        except ValueError:
            found = math.nan
        if not math.isfinite(found) or found < least or (above and found == least):
            raise argparse.ArgumentTypeError(f"{kind} {bound}, not {value!r}")
        return found

    parse.__name__ = kind  # argparse names the type in its own messages
    return parse


at_least_one = number(int, 1)


def add_prices(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """The price table a cost estimate reads (default: gpt-4o-mini's)."""
    price = number(float, 0)
    parser.add_argument("--price-input", type=price, default=0.15, help="$ per 1M input tokens")
    parser.add_argument("--price-output", type=price, default=0.60, help="$ per 1M output tokens")
    parser.add_argument("--price-search", type=price, default=0.0, help="$ per search query")


def add_ray(parser: argparse.ArgumentParser | argparse._ArgumentGroup, what: str) -> None:
    """``--ray [ADDRESS]``: ``what`` spread over a Ray cluster."""
    parser.add_argument(
        "--ray",
        nargs="?",
        const="auto",
        metavar="ADDRESS",
        help=f"spread {what} over a Ray cluster: its address, or 'auto' (--ray alone) for the one "
        "this machine belongs to; every worker needs factcourt and the endpoints' keys, and a shared "
        "--store across machines. Needs pip install 'factcourt[ray]'",
    )


def prices_from(args: argparse.Namespace) -> Prices:
    """The prices the options name."""
    return Prices(args.price_input, args.price_output, args.price_search)


# the groups of the published flags (a field's ``flag["group"]``), listed first, in this order;
# every other field's flag is listed under its class's
GROUPS = ("debate", "models and search", "run")


@dataclass(frozen=True)
class SettingFlag:
    """A context field's flag, made as Studio's form draws the field: from its type and description."""

    field: str
    option: str
    group: str
    options: dict[str, Any]
    """Its argparse options (``dest`` among them)."""
    off: bool = False
    """A true-by-default switch: its flag (``--no-cache``) sets the field false."""
    repeat: bool = False
    """It may be given several times (``--base-url``'s batch replicas): the field takes the first."""


def setting_flags(context: type[BaseContext]) -> list[SettingFlag]:
    """The flag of each of ``context``'s fields, in the order Studio's form lists them."""
    hints = get_type_hints(context)
    return [_setting_flag(context, f, hints[f.name]) for f in fields(context)]


def _setting_flag(context: type[BaseContext], f: Field[Any], hint: Any) -> SettingFlag:
    spec: Flag = f.metadata.get("flag", {})
    if isinstance(hint, UnionType):  # X | None: a flag not given leaves it None
        hint = next(a for a in get_args(hint) if a is not type(None))
    default = f.default_factory() if f.default_factory is not MISSING else f.default
    off = hint is bool and default is True  # a switch names the change: --no-cache, --correct
    option = spec.get("name") or f"--{'no-' if off else ''}{f.name.replace('_', '-')}"
    options: dict[str, Any] = {"dest": option.removeprefix("--").replace("-", "_")}
    said = []
    if hint is bool:
        options["action"] = "store_true"
    elif get_origin(hint) is Literal:
        options["choices"] = list(get_args(hint))
    elif get_origin(hint) is list:
        options["type"] = _comma_list(get_args(hint)[0])
        said.append("comma-separated")
    elif get_origin(hint) is dict:
        metavar = spec.get("metavar", "KEY=VALUE")
        options |= {"action": "append", "type": _key_value(metavar, get_args(hint)[1]), "metavar": metavar}
        said.append("repeatable")
        if f.name == "role_models":  # the roles of this command's own graph
            said.append("roles: " + ", ".join(context.agent_roles()))
    elif hint in (int, float):
        options["type"] = hint  # its bounds are the context's to check: one sentence, as for --set
    if "repeat" in spec:
        options["action"] = "append"
        said.append(spec["repeat"])
    text = f.metadata.get("description", "")
    said += _default_and_bounds(f, default, text)
    options["help"] = (f"{text} ({'; '.join(said)})" if said else text).replace("%", "%%")
    group = spec.get("group") or _group_of(context, f.name)
    return SettingFlag(f.name, option, group, options, off=off, repeat="repeat" in spec)


# how a bound reads in --help (Studio's form shows them as minimum and maximum)
BOUND_WORDS = {"ge": "at least", "gt": "above", "le": "at most"}


def _default_and_bounds(f: Field[Any], default: Any, text: str) -> list[str]:
    """What --help adds to a field's description: its default (unless it speaks of it) and bounds."""
    said = []
    shown = isinstance(default, str | int | float | list) and default not in ("", [])
    if shown and "default" not in text.lower():
        if isinstance(default, bool):
            default = "on" if default else "off"
        said.append(f"default: {','.join(map(str, default)) if isinstance(default, list) else default}")
    return said + [f"{word} {f.metadata[b]:g}" for b, word in BOUND_WORDS.items() if b in f.metadata]


def _group_of(context: type[BaseContext], name: str) -> str:
    """The --help group of a field: the first words of the docstring of the class that declares it."""
    owner = next(k for k in context.__mro__ if name in k.__dict__.get("__annotations__", {}))
    title = re.split(r"[:.,;(]", owner.__doc__ or owner.__name__, maxsplit=1)[0].strip()
    return title[:1].lower() + title[1:]


def _comma_list(item: Any) -> Callable[[str], list[Any]]:
    """An argparse type: comma-separated ``item``s, none empty."""

    def parse(value: str) -> list[Any]:
        items = [part.strip() for part in value.split(",")]
        try:
            if all(items):
                return [item(part) for part in items]
        except ValueError:
            pass
        kind = {int: "whole numbers", float: "numbers"}.get(item, "values")
        raise argparse.ArgumentTypeError(f"comma-separated {kind}, none empty, not {value!r}")

    parse.__name__ = "comma-separated list"  # argparse names the type in its own messages
    return parse


def _key_value(metavar: str, kind: Any) -> Callable[[str], tuple[str, Any]]:
    """An argparse type: ``KEY=VALUE``, VALUE as JSON where the field's values are no text."""

    def parse(given: str) -> tuple[str, Any]:
        key, sep, value = given.partition("=")
        if not sep or not key:
            raise argparse.ArgumentTypeError(f"takes {metavar}, not {given!r}")
        if kind is str:
            return key, value
        try:
            return key, json.loads(value)
        except json.JSONDecodeError:
            return key, value

    parse.__name__ = metavar
    return parse


# what the claim court's presets set: a context with all of these takes --preset
PRESET_FIELDS = tuple(sorted({key for preset in PRESETS.values() for key in preset}))


def setting_fields(parser: argparse.ArgumentParser) -> dict[str, tuple[str, ...]]:
    """The settings flags ``parser`` offers, by their dest, with the context fields each fills."""
    context = parser.get_default("settings_context") or BaseContext
    flags: dict[str, tuple[str, ...]] = {flag.option: (flag.field,) for flag in setting_flags(context)}
    flags["--preset"] = PRESET_FIELDS
    return {
        action.dest: flags[option]
        for action in parser._actions
        for option in action.option_strings
        if option in flags
    }


def add_settings(parser: argparse.ArgumentParser, context: type[BaseContext]) -> None:
    """A flag for each field of ``context`` (:func:`setting_flags`), then ``--store`` and ``--set``.

    A command offers only the flags its own context reads: ``detect --help`` lists no jury. The
    published flags come first, in their groups (:data:`GROUPS`); the others under their class.
    """
    flags = setting_flags(context)
    titles = [g for g in GROUPS if any(f.group == g for f in flags)] + [f.group for f in flags]
    groups = {title: parser.add_argument_group(title) for title in dict.fromkeys(titles)}
    if set(PRESET_FIELDS) <= {f.name for f in fields(context)}:
        groups["debate"].add_argument(
            "--preset",
            choices=sorted(PRESETS),
            help="a published system as its paper runs it: every claim debated, with its paper's "
            "prompts, rounds and rule (docs/fidelity.md); other options still apply on top. "
            "Default: the measured best (see README)",
        )
    for flag in flags:
        groups[flag.group].add_argument(flag.option, **flag.options)
    g = groups.get("run") or parser.add_argument_group("run")
    g.add_argument(
        "--store",
        metavar="URL",
        help="a postgresql:// database for the cache, crash checkpoints and batch results, shared by "
        "every process and machine pointed at it (default: FACTCOURT_STORE, else SQLite files in "
        "the user cache); needs pip install 'factcourt[postgres]'",
    )
    g.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="any setting of this command's context, VALUE as JSON (e.g. --set temperature=0.2); it "
        "wins over the setting's flag",
    )
    parser.set_defaults(settings_context=context)


def settings_values(args: argparse.Namespace) -> dict[str, Any]:
    """The settings the options name (preset, flags, --set), as JSON values."""
    values: dict[str, Any] = dict(PRESETS[args.preset]) if getattr(args, "preset", None) else {}
    for flag in setting_flags(getattr(args, "settings_context", None) or BaseContext):
        given = getattr(args, flag.options["dest"], None)
        if given is None or given is False:
            continue
        if flag.field == "max_concurrency" and getattr(args, "batch", None):
            continue  # rows checked at once (commands.batch reads it), not claims
        if flag.options.get("action") == "store_true":
            given = not flag.off
        elif flag.repeat:
            if len(given) > 1 and not getattr(args, "batch", None):
                raise ConfigError(f"several {flag.option} are replicas for a --batch run: give one")
            given = given[0]
        elif flag.options.get("action") == "append":  # KEY=VALUE pairs
            given = dict(given)
        values[flag.field] = given
    for item in getattr(args, "set", []):
        key, sep, raw = item.partition("=")
        if not sep:
            raise ConfigError(f"--set takes KEY=VALUE, not {item!r}")
        try:
            values[key] = json.loads(raw)
        except json.JSONDecodeError:
            values[key] = raw
    return values


Kind = TypeVar("Kind", bound=BaseContext)


def settings_from(args: argparse.Namespace, kind: type[Kind]) -> Kind:
    """Turn the parsed options into the command's ``kind`` of context, checked before any call."""
    ctx = kind.make(settings_values(args))
    preflight(ctx)
    return ctx


def preflight(ctx: BaseContext, answerers: list[str] | None = None) -> None:
    """The API's preflight, with a bar while hybrid retrieval embeds a corpus for the first time."""
    from factcourt import api

    with embedding_progress() as progress:
        api.preflight(ctx, answerers, progress)


@contextlib.contextmanager
def embedding_progress() -> Iterator[Callable[[int, int], None]]:
    """A hook for (passages embedded, in all) whose bar shows only once a corpus is being embedded."""
    bar = Progress(
        TextColumn("[bold]embedding the corpus (once; an interrupted run resumes)"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=err,
        transient=True,
    )
    task = bar.add_task("", total=None)

    def advance(done: int, total: int) -> None:
        if not bar.live.is_started:
            bar.start()
        bar.update(task, completed=done, total=total)

    try:
        yield advance
    finally:
        bar.stop()


@contextlib.contextmanager
def run_progress(quiet: bool, what: str) -> Iterator[Callable[[dict[str, Any]], None]]:
    """A progress bar drawn from a run's events: the hook the API hands each of them.

    ``what`` names the run where it resumes a crashed one or runs beside a live one.
    """
    progress = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[last]}"),
        console=err,
        transient=True,
        disable=quiet,
    )
    task = progress.add_task("decomposing", total=None, last="")

    def on_event(chunk: dict[str, Any]) -> None:
        if chunk["event"] == "run":
            say_how_it_runs(chunk, quiet, what)
        elif chunk["event"] == "claims":
            progress.update(task, description="checking claims", total=chunk["count"])
        elif chunk["event"] == "verdict":
            progress.advance(task)
            progress.update(task, last=f"{chunk['claim_id']}: {chunk['verdict'] or 'failed'}")
        elif chunk["event"] == "turn_done":
            progress.update(task, last=f"{chunk['claim_id']} {chunk['speaker']} r{chunk['round']}")

    with progress:
        yield on_event


def say_how_it_runs(run: dict[str, Any], quiet: bool, what: str) -> None:
    """Say that a resumable run resumes a crashed one, or runs beside a live one.

    Crashed runs an older factcourt saved cannot resume after the update moved the classes
    their states name: they were cleared, and the user is told so once.
    """
    if run["cleared_unreadable"]:
        err.print(
            f"[yellow]{run['cleared_unreadable']} interrupted run(s) saved by an older factcourt cannot "
            "resume after its update and were cleared: run them again[/]"
        )
    if run["beside_live_run"]:
        err.print(
            f"[yellow]a run of {what} is still going in another process: this one runs on its own "
            "and does not resume it[/]"
        )
    if run["resumed"] and not quiet:
        err.print(f"[yellow]resuming the interrupted run of {what}[/]")


def emit_result(result: BaseModel, args: argparse.Namespace, render: Callable[[Any], None]) -> None:
    """Print the result's JSON (``--json``) or the readable report, then write ``--out``.

    Printed first: a write that fails after the run (the folder removed meanwhile) then loses
    nothing that was not already shown.
    """
    text = json_text(result.model_dump(mode="json"), indent=2)
    if args.json:
        print(text, flush=True)
    else:
        render(result)
    if args.out:
        try:
            Path(args.out).write_text(text + "\n", encoding="utf-8")
        except OSError as exc:
            kept = "; the result is printed above" if args.json else ""
            raise FactcourtError(f"could not write --out {args.out} ({exc.strerror}){kept}") from exc
    if getattr(args, "html", None):
        from factcourt.report import write_html

        assert isinstance(result, Result)  # only the commands of a system's result take --html
        write_html(args.html, result)


def warn_if_corpus_misses_language(text: str, ctx: BaseContext) -> None:
    """Say once, before the run, that the local corpus holds nothing in the text's language.

    The shipped corpus is English Wikipedia: Chinese or Arabic claims find nothing in it and come
    back "not enough evidence", unjudged. Each such claim is also marked in the result.
    """
    from factcourt.api import LANGUAGE_NOT_COVERED, uncovered_language

    if language := uncovered_language(ctx, text):
        corpus = ctx.corpus or "(English Wikipedia)"
        err.print(
            f"[yellow]warning:[/] the local corpus {escape(corpus)} holds no '{language}' text, so such "
            f"claims are marked '{LANGUAGE_NOT_COVERED}' and come back 'not enough evidence', "
            "unjudged; search the web (--search tavily or serper, with its key) or give a corpus "
            "in that language with --corpus"
        )


def prepare_out(out_path: str | None, flag: str = "--out") -> None:
    """Check the file ``flag`` names and create its folder before the run, so no result is lost at the end."""
    if not out_path:
        return
    path = Path(out_path)
    if path.is_dir():
        raise ConfigError(
            f"{flag} {out_path} is a folder: give the file to write, e.g. {path / 'result.json'}"
        )
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"{flag}: cannot create the folder for {out_path}: {exc.strerror}") from exc
    if not os.access(path.parent, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise ConfigError(f"{flag}: cannot write {out_path}: permission denied")


# the options that name a file (or folder) a command reads, and those that name what it writes
INPUT_OPTIONS = (
    "file",
    "batch",
    "evidence",
    "knowledge",
    "dataset",
    "corpus",
    "prompts",
    "seeds",
    "load",
    "fixture",
    "answers",
    "import_review",
    "data",
    "base",
)
OUTPUT_OPTIONS = ("out", "html", "append")


def _flag(option: str) -> str:
    return "FILE" if option == "file" else f"--{option.replace('_', '-')}"


def _named_paths(args: argparse.Namespace, options: tuple[str, ...]) -> list[tuple[str, str, Path]]:
    """(flag, as given, resolved path) of each path ``options`` name; 'PATH:EVIDENCE' gives PATH too."""
    found = []
    for option in options:
        value = getattr(args, option, None)
        for given in value if isinstance(value, list) else [value]:
            if not isinstance(given, str) or not given or given == "-":
                continue
            spelt = [given]
            if ":" in given and not Path(given).exists():  # bench's --dataset qa.jsonl:given
                spelt.append(given.rpartition(":")[0])
            found += [(_flag(option), given, Path(p).expanduser().resolve()) for p in spelt if p]
    return found


def _same(a: Path, b: Path) -> bool:
    if a == b:
        return True
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)  # a hard link, say
    except OSError:
        return False


def check_paths(args: argparse.Namespace) -> None:
    """Refuse, before any model call, an output that names an input or another output of the run.

    ``check e.txt --out e.txt`` would overwrite the text it checks, ``--out x --html x`` keep only
    the page, and ``bench run --out d --html d/predictions.jsonl`` spoil the folder's records: no
    output may be an input, another output, or lie inside another output (a folder of reports).
    """
    outputs = _named_paths(args, OUTPUT_OPTIONS)
    inputs = [named for named in _named_paths(args, INPUT_OPTIONS) if named[2].exists()]
    for flag, given, path in outputs:
        for other_flag, other, other_path in inputs:
            if _same(path, other_path):
                what = "the file" if other_flag == "FILE" else f"the {other_flag} file"
                raise ConfigError(
                    f"{flag} {given} is {what} the run reads, which writing would destroy: write the "
                    "result to another file"
                )
    for i, (flag, given, path) in enumerate(outputs):
        for other_flag, other, other_path in outputs[i + 1 :]:
            if _same(path, other_path):
                raise ConfigError(f"{other_flag} {other} is also {flag}: give each output a file of its own")
    for flag, given, path in outputs:
        for other_flag, other, other_path in outputs:
            if other_path in path.parents:
                raise ConfigError(
                    f"{flag} {given} lies inside {other_flag} {other}, whose files the run writes: "
                    f"give {flag} a path outside it"
                )


@contextlib.contextmanager
def output_lock(args: argparse.Namespace) -> Any:
    """Hold what a command writes (``--out``, ``--append``) for the whole command.

    Two runs into one ``--out`` at once each found nothing stored and made and wrote every
    record (and model call) twice; the second now waits, then goes on from what the first
    stored. The lock file lies beside the output (hidden, ``.NAME.lock``): one in a per-user
    folder (the cache) was missed by a run under another ``FACTCOURT_CACHE_DIR`` or user.
    """
    from filelock import FileLock, Timeout

    with contextlib.ExitStack() as held:
        for flag in ("out", "append"):
            if not (written := getattr(args, flag, None)):
                continue
            path = Path(written).expanduser().resolve()
            beside = path.with_name(f".{path.name}.lock")
            try:  # filelock takes a lock file it cannot make for one held: it would wait for ever
                beside.touch()
            except OSError:  # a folder no file is made in (/proc/self's, a missing one): the run says so
                continue
            lock = FileLock(beside)
            try:
                lock.acquire(timeout=0)
            except Timeout:
                err.print(f"[yellow]another run is writing {escape(written)}: waiting for it to end[/]")
                lock.acquire()
            held.callback(lock.release)
        yield


def prepare_out_folder(folder: Path) -> None:
    """Create ``--out``'s folder of reports before the run and check that it takes files."""
    if folder.exists() and not folder.is_dir():
        raise ConfigError(f"--out must be a folder: {folder} is a file")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"--out: cannot create the folder {folder}: {exc.strerror}") from exc
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ConfigError(f"--out: cannot write in the folder {folder}: permission denied")
