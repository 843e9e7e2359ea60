"""What every ``factcourt`` command shares: consoles, input, settings, progress, output.

The command modules (``cli.claims``, ``cli.hallucination``, ``cli.audit``, ...) all build on these, and
``cli`` registers them, so these live below all of them.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import fields
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from factcourt.context.base import BaseContext
from factcourt.context.claims import PRESETS, PROTOCOLS, RULES
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


def _field_help(context: type[BaseContext], name: str) -> str:
    """A flag's help: the description of the context field it fills, as Studio shows it."""
    description: str = next(f.metadata.get("description", "") for f in fields(context) if f.name == name)
    return description


def _settings_flags() -> list[tuple[str, str, tuple[str, ...], dict[str, Any]]]:
    """Each settings flag: its group, its name, the context fields it fills, and its argparse options.

    A help of None is the field's own description.
    """
    return [
        (
            "debate",
            "--preset",
            tuple(sorted({key for preset in PRESETS.values() for key in preset})),
            {
                "choices": sorted(PRESETS),
                "help": "a published system as its paper runs it: every claim debated, with its paper's "
                "prompts, rounds and rule (docs/fidelity.md); other options still apply on top. "
                "Default: the measured best (see README)",
            },
        ),
        (
            "debate",
            "--protocol",
            ("protocol",),
            {
                "choices": PROTOCOLS,
                "help": "who debates a claim the first pass sends on (default jury); by default the first "
                "pass decides every claim: add --set first_pass=off or a --preset to debate each",
            },
        ),
        (
            "debate",
            "--rule",
            ("rule",),
            {"choices": RULES, "help": "debate rule of a debated claim (default free)"},
        ),
        (
            "debate",
            "--reader",
            ("reader",),
            {
                "choices": ["llm", "trained"],
                "help": "who reads the first pass's verdict: 'llm' (default: the label token of the "
                "evaluator model's call) or 'trained' (the pilot reader trained here, on this CPU, no "
                "model call)",
            },
        ),
        ("debate", "--jurors", ("jurors",), {"type": int, "help": "number of jury evaluators (default 2)"}),
        ("debate", "--rounds", ("rounds",), {"type": int, "help": None}),
        (
            "debate",
            "--juror-models",
            ("juror_models", "jurors"),
            {
                "help": "a model per juror, comma-separated, in speaking order (MAD-Fact Table 5); "
                "sets --jurors"
            },
        ),
        (
            "debate",
            "--jury-judge",
            ("jury_judge",),
            {
                "choices": ["vote", "model"],
                "help": "who decides a jury's claim: the majority vote (default) or the 'judge' role's model",
            },
        ),
        ("debate", "--theta", ("theta",), {"type": float, "help": None}),
        ("debate", "--first-pass-theta", ("first_pass_theta",), {"type": float, "help": None}),
        (
            "models and search",
            "--model",
            ("model",),
            {"help": "model for every role: auto, local, sim, or a model name"},
        ),
        (
            "models and search",
            "--base-url",
            ("base_url",),
            {
                "action": "append",
                "help": "OpenAI-compatible endpoint (vLLM, Ollama, llama.cpp, ...); with --batch, repeat it "
                "to send the rows to several replicas in turn",
            },
        ),
        (
            "models and search",
            "--role-model",
            ("role_models",),
            {
                "action": "append",
                "default": [],
                "metavar": "ROLE=MODEL",
                "help": "per-role model; roles: {roles}",
            },
        ),
        (
            "models and search",
            "--search",
            ("search",),
            {
                "choices": ["auto", "local", "tavily", "serper", "given", "none"],
                "help": "search backend (default auto: Tavily or Serper when its key is set, else local "
                "offline Wikipedia)",
            },
        ),
        (
            "models and search",
            "--corpus",
            ("corpus",),
            {"help": "local corpus: JSONL file or folder of .txt files"},
        ),
        (
            "run",
            "--concurrency",
            ("max_concurrency",),
            {"type": int, "help": "claims checked at once (default 4; the embedded model: its local_slots)"},
        ),
        ("run", "--no-cache", ("cache",), {"action": "store_true", "help": "do not read or write the cache"}),
    ]


def setting_fields(parser: argparse.ArgumentParser) -> dict[str, tuple[str, ...]]:
    """The settings flags ``parser`` offers, by their dest, with the context fields each fills."""
    flags = {name: filled for _, name, filled, _ in _settings_flags()}
    return {
        action.dest: flags[option]
        for action in parser._actions
        for option in action.option_strings
        if option in flags
    }


def add_settings(parser: argparse.ArgumentParser, context: type[BaseContext]) -> None:
    """The settings flags of the fields ``context`` has, then ``--store`` and ``--set``.

    A command offers only the flags its own context reads: ``detect --help`` lists no jury.
    """
    has = {f.name for f in fields(context)}
    groups: dict[str, Any] = {}
    for group, name, filled, options in _settings_flags():
        if not set(filled) <= has:
            continue
        if group not in groups:
            groups[group] = parser.add_argument_group(group)
        if options.get("help", "") is None:
            options = {**options, "help": _field_help(context, filled[0])}
        elif "{roles}" in options.get("help", ""):  # the roles of this command's own graph
            options = {**options, "help": options["help"].format(roles=", ".join(context.agent_roles()))}
        groups[group].add_argument(name, **options)
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
        help="any other setting of this command's context, VALUE as JSON (e.g. --set temperature=0.2)",
    )
    parser.set_defaults(settings_context=context)


def settings_values(args: argparse.Namespace) -> dict[str, Any]:
    """The settings the options name (preset, flags, --set), as JSON values."""
    values: dict[str, Any] = dict(PRESETS[args.preset]) if getattr(args, "preset", None) else {}
    for option, key in [
        ("protocol", "protocol"),
        ("rule", "rule"),
        ("jurors", "jurors"),
        ("rounds", "rounds"),
        ("theta", "theta"),
        ("first_pass_theta", "first_pass_theta"),
        ("model", "model"),
        ("search", "search"),
        ("corpus", "corpus"),
        ("concurrency", "max_concurrency"),
        ("jury_judge", "jury_judge"),
        ("reader", "reader"),
    ]:
        if option == "concurrency" and getattr(args, "batch", None):
            continue  # rows checked at once, not claims
        if getattr(args, option, None) is not None:
            values[key] = getattr(args, option)
    if getattr(args, "juror_models", None):
        values["juror_models"] = [m.strip() for m in args.juror_models.split(",")]
    urls = getattr(args, "base_url", None) or []
    if len(urls) > 1 and not getattr(args, "batch", None):
        raise ConfigError("several --base-url are replicas for a --batch run: give one")
    if urls:
        values["base_url"] = urls[0]
    if getattr(args, "no_cache", False):
        values["cache"] = False
    if getattr(args, "correct", False):
        values["correct"] = True
    role_models = {}
    for item in getattr(args, "role_model", []):
        role, sep, model = item.partition("=")
        if not sep:
            raise ConfigError(f"--role-model takes ROLE=MODEL, not {item!r}")
        role_models[role] = model
    if role_models:
        values["role_models"] = role_models
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
