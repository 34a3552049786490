"""``--lang zh``: every message a user can see has a Chinese form (issue 32 item 5).

* The structure: every message the code makes (``Message("...")``, ``cached``, ``say``,
  the command line's ``_message``), every sentence it asks the glossary for (``text("...")``)
  and every paragraph of every command's ``--help`` has its Chinese in
  ``rules/glossary.toml``; no error is raised, and no ``fail`` / ``BadParameter`` is given,
  English text (an f-string or a literal) instead of a message. A failure names the file
  and line (or the command and option) and the text that lacks its Chinese.
* Through the command line, under ``ZHUOJI_STRICT_GLOSSARY=1`` (a message without Chinese
  raises instead of showing its English): a parse error, a command error (the ``--game``
  choice), a usage error, the ``--help`` of every command (by ``--lang zh`` before or
  after the command and by the locale) and the dashboard's progress lines on a real
  terminal are Chinese and hold no English sentence; the English of each is unchanged.
"""

from __future__ import annotations

import ast
import os
import pty
import re
import select
import subprocess
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from zhuoji.flows.cli.help import help_paragraphs
from zhuoji.flows.cli.main import app
from zhuoji.rules.glossary import MissingChinese, glossary, help_text, render
from zhuoji.rules.messages import Message

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample" / "t7-20261101.jsonl"  # two games
STRICT = {"ZHUOJI_STRICT_GLOSSARY": "1"}
CLEAN_ENV = {"LC_ALL": "", "LC_MESSAGES": "", "LANG": "", "NO_COLOR": "1", **STRICT}
runner = CliRunner()
ENTRY = "import sys; from zhuoji.flows.cli.main import main; sys.argv[0] = 'zhuoji'; main()"
"""The console script's entry point in a process of its own."""

_ENGLISH = re.compile(r"(?<![A-Za-z0-9_])[A-Za-z]+(?:[ ,;:'()-]+[A-Za-z]+)+(?![A-Za-z0-9_])")
"""Two or more English words in a row: an untranslated sentence or phrase."""

_NOT_WORDS = re.compile(
    r"`[^`]*`"  # a command quoted
    r"|\bzhuoji(?: [a-z]+)*"  # a command's name
    r"|\b\w+://\S+"  # an address
    r"|--?[A-Za-z][\w-]*"  # an option
    r"|<[^>]*>"  # a metavar
    r"|\{[^{}]*\}|\[[A-Z][^\]]*\]"  # a JSON object's keys, [OPTIONS]
    r"|\b[a-z]+(?:_[a-z0-9]+)+\b|\b[A-Z][A-Z0-9_]+\b"  # identifiers, NAMES
    r"|[\w.-]*[/.][\w./*-]+"  # paths, file names, URLs
    r"|'[^']*'"  # a quoted value
)
_NAMES = ("Prefect API", "Prefect", "DuckDB", "Dask", "JSON Schema", "Python", "Unicode",
          "Unix", "Ctrl-C", "Guizhou", "Changsha", "pure", "compiled", "markdown",
          "Home", "End", "gzip", "cron", "table", "csv", "json", "parquet", "jsonl")


def english_left(text: str, *allowed: str) -> list[str]:
    """The English word runs of a Chinese text once names, options, paths, identifiers
    and quoted commands are taken out."""
    text = _NOT_WORDS.sub(" ", text)
    for name in sorted((*allowed, *_NAMES), key=len, reverse=True):
        text = text.replace(name, " ")
    return _ENGLISH.findall(text)


def zhuoji(*args: str, env: dict[str, str] | None = None,
           **kwargs: object) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k not in ("LC_ALL", "LC_MESSAGES", "LANG")}
    return subprocess.run(
        [sys.executable, "-c", ENTRY, *args], capture_output=True, text=True,
        timeout=300, env={**base, "NO_COLOR": "1", "COLUMNS": "100", **STRICT, **(env or {})},
        cwd=ROOT, check=False, **kwargs,  # type: ignore[arg-type]
    )


# --- the structure: every message of the code has its Chinese ---------------------------------

_MESSAGE_MAKERS = frozenset({"Message", "cached", "say", "_message"})
_TEXT_LOOKUPS = frozenset({"text", "t", "_t", "console_line"})
_ERROR_SITES = frozenset({"fail", "BadParameter"})
_NOT_SHOWN = frozenset({"TypeError", "AssertionError", "NotImplementedError", "AttributeError",
                        "KeyError", "GlossaryError", "MissingChinese", "PydanticCustomError"})
"""Exceptions that say a programming error, never a user's: their text stays English
(pydantic's own errors are read into messages by parsers/read.py)."""
PROGRAMMING_ERROR = "# a programming error, never a user's: not translated"
"""The comment, on the line above a ``raise``, of an error no user can cause."""
_SHOWN_MODULES = ("flows", "parsers")
"""Where an exception's text reaches a user (the engine's findings are messages already)."""
_RULES_SHOWN = frozenset({"RulesetError", "UnknownPresetError", "UnknownSettingError",
                          "UnknownFamilyError"})
"""The engine's errors a user causes (a preset, a setting, a family named on the command line
or in a log): in rules/ these are checked as every error of flows/ and parsers/ is. The
engine's other errors say a log the replay reads as a finding, or a programming error."""


def _sources() -> Iterator[tuple[Path, ast.Module, list[str]]]:
    for folder in ("flows", "parsers", "rules"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            source = path.read_text(encoding="utf-8")
            yield path, ast.parse(source, str(path)), source.splitlines()


def _literals(node: ast.expr) -> list[str] | None:
    """The strings ``node`` can be: a literal, literals joined by ``+`` (or implicitly), or
    either branch of ``a if c else b``; None when it is not made of literals only."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):
        a, b = _literals(node.body), _literals(node.orelse)
        return None if a is None or b is None else a + b
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        a, b = _literals(node.left), _literals(node.right)
        return None if a is None or b is None or len(a) != 1 or len(b) != 1 else [a[0] + b[0]]
    return None


def _is_text(node: ast.expr) -> bool:
    """An f-string, or a literal that reads as a sentence (two words or more)."""
    if isinstance(node, ast.JoinedStr):
        return True
    literals = _literals(node)
    return literals is not None and any(re.search(r"[A-Za-z]+ [A-Za-z]+", t) for t in literals)


_LINE_WRITERS = frozenset({"echo", "secho", "write", "print"})


def _starts_an_error_line(node: ast.expr) -> bool:
    """``f"error: ..."`` or ``"error: ..."``: an error line written by hand."""
    if isinstance(node, ast.JoinedStr) and node.values:
        head = node.values[0]
        return isinstance(head, ast.Constant) and str(head.value).startswith("error:")
    literals = _literals(node)
    return literals is not None and any(t.startswith("error:") for t in literals)


def _name(call: ast.Call) -> str:
    fn = call.func
    return fn.attr if isinstance(fn, ast.Attribute) else fn.id if isinstance(fn, ast.Name) else ""


def _where(path: Path, node: ast.AST) -> str:
    return f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}"


def missing_chinese() -> list[str]:
    """Every message and sentence of the code without its Chinese, and every error given
    as English text, each with its file and line."""
    g = glossary()
    templates = g.index("")
    out: list[str] = []
    for path, tree, lines in _sources():
        in_rules = path.relative_to(ROOT).parts[0] == "rules"
        shown_module = path.relative_to(ROOT).parts[0] in _SHOWN_MODULES
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and node.args:
                name, first = _name(node), node.args[0]
                literals = _literals(first)
                if name in _MESSAGE_MAKERS and literals is not None:
                    for template in literals:
                        found = templates.get(template)
                        if found is None or not found.chinese:
                            out.append(f"{_where(path, node)}: the message {template!r} has "
                                       "no Chinese: add it to a [message.<group>] table of "
                                       "rules/glossary.toml")
                elif name in _TEXT_LOOKUPS and literals is not None and path.parts[-3:-1] != (
                        "rules", "families"):
                    for english in literals:
                        if english not in g.texts:
                            out.append(f"{_where(path, node)}: the text {english!r} has no "
                                       "Chinese: add it to [text] of rules/glossary.toml")
                elif name in _ERROR_SITES and (
                        literals is not None or isinstance(first, ast.JoinedStr)):
                    out.append(f"{_where(path, node)}: {name}() is given English text: give "
                               "it a Message whose template rules/glossary.toml translates")
                elif (name in _ERROR_SITES and isinstance(first, ast.Call)
                        and _name(first) == "str"):
                    out.append(f"{_where(path, node)}: {name}(str(...)) drops the message "
                               "the error was raised with: give it the exception itself")
                elif name in _LINE_WRITERS and _starts_an_error_line(first):
                    out.append(f"{_where(path, node)}: an error line written as English text: "
                               "raise fail(message) (flows/cli/errors.py)")
            if ((shown_module or in_rules) and isinstance(node, ast.Raise)
                    and isinstance(node.exc, ast.Call) and node.exc.args):
                name = _name(node.exc)
                if (name not in _NOT_SHOWN and name[:1].isupper()
                        and (shown_module or name in _RULES_SHOWN)
                        and PROGRAMMING_ERROR not in lines[node.lineno - 2]
                        and any(_is_text(arg) for arg in node.exc.args)):
                    out.append(f"{_where(path, node)}: {name} is raised with English text: "
                               "raise it with a Message whose template rules/glossary.toml "
                               "translates")
            if (shown_module and isinstance(node, ast.ClassDef)
                    and node.name.endswith(("Error", "Exception", "Timeout"))):
                for call in ast.walk(node):
                    if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                            and call.func.attr == "__init__"
                            and isinstance(call.func.value, ast.Call)
                            and _name(call.func.value) == "super" and call.args
                            and PROGRAMMING_ERROR not in lines[call.lineno - 2]
                            and _is_text(call.args[0])):
                        out.append(f"{_where(path, call)}: {node.name} says English text: "
                                   "give super().__init__ a Message whose template "
                                   "rules/glossary.toml translates")
    return sorted(set(out))


def test_every_message_of_the_code_has_chinese() -> None:
    missing = missing_chinese()
    assert not missing, "messages without Chinese:\n" + "\n".join(missing)


def _commands() -> Iterator[tuple[list[str], object]]:
    root = get_command(app)

    def walk(command: object, path: list[str]) -> Iterator[tuple[list[str], object]]:
        yield path, command
        for name, sub in getattr(command, "commands", {}).items():
            yield from walk(sub, [*path, name])

    yield from walk(root, [])


COMMANDS = [path for path, _ in _commands()]


_LABEL_WRITERS = frozenset({"echo", "secho", "print", "add_column", "add_row", "TextColumn",
                            "Table", "Panel"})
"""What prints a line or a table's cell, header or title (Click, Rich): none is given English
text of its own; a label goes through ``t``/``text`` (or is a :class:`Message`)."""
_LABEL_KEYWORDS = frozenset({"title", "caption", "header"})
_COLLECTIONS = frozenset({"rows", "lines", "parts", "header", "headers"})
"""In flows/cli: the rows and lines a command builds before it prints them."""
_MARKUP = re.compile(r"\[/?[a-z ]*\]")


def _constant_parts(node: ast.expr) -> list[str]:
    """The literal text of ``node``: a literal, an f-string's literal parts, literals joined
    by ``+``, either branch of ``a if c else b``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr):
        return [str(v.value) for v in node.values if isinstance(v, ast.Constant)]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _constant_parts(node.left) + _constant_parts(node.right)
    if isinstance(node, ast.IfExp):
        return _constant_parts(node.body) + _constant_parts(node.orelse)
    return []


def _says_english(literal: str) -> bool:
    """An English word (two letters or more) once Rich's markup, options, paths,
    identifiers, placeholders and quoted commands are taken out."""
    return re.search(r"[A-Za-z]{2,}", _NOT_WORDS.sub(" ", _MARKUP.sub(" ", literal))) is not None


def _label_nodes(tree: ast.Module, in_cli: bool) -> Iterator[ast.expr]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _name(node) in _LABEL_WRITERS:
            yield from node.args
            yield from (k.value for k in node.keywords if k.arg in _LABEL_KEYWORDS)
        if not in_cli:
            continue
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(x, ast.Name) and x.id in _COLLECTIONS for x in targets):
                yield node.value
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("append", "extend")
                and isinstance(node.func.value, ast.Name) and node.func.value.id in _COLLECTIONS):
            yield from node.args


def english_labels(extra: Iterable[tuple[Path, str]] = ()) -> list[str]:
    """Every fixed English label or line the commands print without the glossary: a
    literal or an f-string's text given to ``echo``/``print``/Rich's ``add_column``,
    ``add_row``, ``TextColumn``, ``Table(title=...)``, or put in a command's ``rows`` or
    ``lines``; each with its file and line. ``extra``: more sources read as if they were
    files of the tree (a path under it, and its text), none written."""
    out: list[str] = []
    trees = [(path, tree) for path, tree, _ in _sources()]
    trees.extend((path, ast.parse(source, str(path))) for path, source in extra)
    for path, tree in trees:
        parts = path.relative_to(ROOT).parts
        if parts[0] != "flows":
            continue
        for label in _label_nodes(tree, parts[1] == "cli"):
            for sub in _outside_lookups(label):
                for literal in _constant_parts(sub):
                    if _says_english(literal):
                        out.append(f"{_where(path, sub)}: the label {literal!r} is English "
                                   "text: say it with t(...)/text(...) and give it its "
                                   "Chinese in [text] of rules/glossary.toml")
    return sorted(set(out))


def _outside_lookups(node: ast.expr) -> Iterator[ast.expr]:
    """The string parts of ``node`` that are not inside a lookup of the glossary (``t``,
    ``text``, ``Message``...): those are translated."""
    if isinstance(node, ast.Call):  # Rich's Text pieces are walked; any other call's value
        if _name(node) in ("assemble", "Text"):  # is its own (a lookup, a name, a number)
            for arg in node.args:
                yield from _outside_lookups(arg)
        return
    if isinstance(node, ast.Tuple) and len(node.elts) == 2 and isinstance(
            node.elts[1], ast.Constant):  # (text, style): a Rich style is no label
        yield from _outside_lookups(node.elts[0])
        return
    if isinstance(node, ast.Constant | ast.JoinedStr | ast.BinOp | ast.IfExp):
        yield node
        if isinstance(node, ast.JoinedStr):
            for value in node.values:
                if isinstance(value, ast.FormattedValue):
                    yield from _outside_lookups(value.value)
            return
        if isinstance(node, ast.BinOp):
            yield from _outside_lookups(node.left)
            yield from _outside_lookups(node.right)
        return
    if isinstance(node, ast.List | ast.Tuple | ast.ListComp | ast.GeneratorExp | ast.Starred):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                yield from _outside_lookups(child)


def test_no_command_prints_an_english_label() -> None:
    found = english_labels()
    assert not found, "labels without Chinese:\n" + "\n".join(found)


def test_the_label_check_finds_a_new_english_label() -> None:
    """A table's header, a progress bar's word, a status line, a row of a command's table:
    each is named with its file and line."""
    # read as a file of the tree, never written into it: the other checks of the tree may
    # run at the same time in another worker
    module = ROOT / "flows" / "cli" / "_probe_labels.py"
    probe = ("def f(echo, table, TextColumn, t, home):\n"
             "    table.add_column('players')\n"
             "    TextColumn('[bold]ingest[/]')\n"
             "    echo(f'prefect home  {home}')\n"
             "    rows = [['name', t('title')]]\n"
             "    echo(t('seed: {seed}', seed=home))\n")
    found = "\n".join(english_labels([(module, probe)]))
    assert "flows/cli/_probe_labels.py:2: the label 'players' is English" in found
    assert "flows/cli/_probe_labels.py:3: the label '[bold]ingest[/]' is English" in found
    assert "flows/cli/_probe_labels.py:4: the label 'prefect home  ' is English" in found
    assert "flows/cli/_probe_labels.py:5: the label 'name' is English" in found
    assert "'title'" not in found and ":6:" not in found, found


def test_every_help_paragraph_has_chinese() -> None:
    from typer.core import TyperGroup

    from zhuoji.flows.cli.app import root_help

    missing: list[str] = []
    for path, command in _commands():
        where = " ".join(["zhuoji", *path])
        helps: list[tuple[str, str | None]] = [
            (where, getattr(command, "help", None) or (
                root_help() if not path else None)),
            (f"{where} (epilog)", getattr(command, "epilog", None)),
        ]
        ctx = get_command(app).make_context("zhuoji", [], resilient_parsing=True)
        for param in command.get_params(ctx):  # type: ignore[attr-defined]
            helps.append((f"{where} {param.opts[0] if param.opts else param.name}",
                          getattr(param, "help", None)))
        for what, english in helps:
            for paragraph in help_paragraphs(english):
                if help_text(paragraph) is None:
                    missing.append(f"{what}: {paragraph!r}")
        assert isinstance(command, TyperGroup) or path, "the root is a group"
    assert not missing, (
        "help without Chinese (add each paragraph to [help] of rules/glossary.toml):\n"
        + "\n".join(missing))


def test_strict_rendering_raises_on_a_message_without_chinese(
        monkeypatch: pytest.MonkeyPatch) -> None:
    unknown = Message("a sentence {n:n} the glossary does not know", 3)
    assert render(unknown, "zh") == str(unknown)  # a user still reads it ...
    monkeypatch.setenv("ZHUOJI_STRICT_GLOSSARY", "1")
    with pytest.raises(MissingChinese, match="does not know"):  # ... the tests do not
        render(unknown, "zh")
    with pytest.raises(MissingChinese, match="not a message"):
        render("an English sentence nobody made a message", "zh")
    assert render(unknown, "en") == "a sentence 3 the glossary does not know"


def test_the_structural_check_finds_a_new_english_message(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A new message without Chinese, an f-string given to fail(), an error raised with
    English text: each is named with its file and line."""
    module = ROOT / "flows" / "cli" / "_probe_lang_zh.py"
    module.write_text(
        "def f(fail, Message, DashboardError):\n"
        "    Message('a brand new sentence {n:n}', 1)\n"
        "    fail(f'a brand new error {1}')\n"
        "    raise DashboardError('a brand new refusal')\n", encoding="utf-8")
    try:
        found = "\n".join(missing_chinese())
    finally:
        module.unlink()
    assert "flows/cli/_probe_lang_zh.py:2: the message 'a brand new sentence {n:n}'" in found
    assert "flows/cli/_probe_lang_zh.py:3: fail() is given English text" in found
    assert "flows/cli/_probe_lang_zh.py:4: DashboardError is raised with English text" in found


# --- through the command line -----------------------------------------------------------------


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "zhuoji")
def test_help_of_every_command_in_chinese(command: list[str]) -> None:
    result = runner.invoke(app, ["--lang", "zh", *command, "--help"], env=CLEAN_ENV)
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert out.startswith("用法：zhuoji"), out
    assert "选项：" in out and "显示本帮助并退出。" in out
    assert re.search(r"[\u4e00-\u9fff]{4}", out.split("\n", 1)[1])
    assert english_left(out) == [], out
    english = runner.invoke(app, [*command, "--help"], env=CLEAN_ENV)
    assert english.stdout.startswith("Usage: zhuoji") and "Show this message" in english.stdout


def test_the_root_help_names_each_family_by_its_words_file() -> None:
    """``zhuoji --help`` lists the families of rules/families/ by each words file's
    ``[family_label]`` (its Chinese is its ``[families]`` name), in both languages, with no
    family named in the code."""
    import tomllib

    labels = []
    for path in sorted((ROOT / "rules" / "families").glob("*/glossary.toml")):
        words = tomllib.loads(path.read_text(encoding="utf-8"))
        english, chinese = words["family_label"][path.parent.name]
        assert chinese == f"<families.{path.parent.name}>"
        labels.append((english, words["families"][path.parent.name][1]))
    assert len(labels) >= 2
    english_list = ", ".join(e for e, _ in labels[:-1]) + " and " + labels[-1][0]
    chinese_list = "、".join(c for _, c in labels[:-1]) + "和" + labels[-1][1]
    result = zhuoji("--help")
    assert result.returncode == 0, result.stderr
    english = f"Audit {english_list} mahjong game logs: parse, replay, settle, load into DuckDB."
    assert english in " ".join(result.stdout.split()), result.stdout  # as wrapped
    result = zhuoji("--lang", "zh", "--help")
    assert result.returncode == 0, result.stderr
    chinese = f"审计{chinese_list}的牌局记录：解析、重放、结算，载入 DuckDB。"
    assert "".join(chinese.split()) in "".join(result.stdout.split()), result.stdout
    source = (ROOT / "flows" / "cli" / "app.py").read_text(encoding="utf-8").lower()
    assert not any(name.split()[0].lower() in source for name, _ in labels)


@pytest.mark.parametrize("how", [
    (["--lang", "zh", "ingest", "--help"], {}),
    (["ingest", "--lang", "zh", "--help"], {}),
    (["ingest", "--help", "--lang", "zh"], {}),
    (["ingest", "--help"], {"LANG": "zh_CN.UTF-8"}),
    (["ingest", "--help"], {"LC_ALL": "zh_TW.UTF-8", "LANG": "en_US.UTF-8"}),
], ids=["root-option", "command-option", "after-help", "locale", "lc-all"])
def test_ingest_help_in_chinese_by_option_or_locale(how: tuple[list[str], dict[str, str]]) -> None:
    args, env = how
    result = zhuoji(*args, env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("用法：zhuoji ingest"), result.stdout
    assert "解析、审计记录并载入 DuckDB" in result.stdout
    assert "工作进程数（默认：核心数）。" in result.stdout
    lines = result.stdout.splitlines()
    # wrapped by terminal columns: a Chinese character takes two
    assert max(len(line) + len(re.findall(r"[\u3000-\u9fff\uff00-\uffef]", line))
               for line in lines) <= 100


def test_english_help_is_unchanged() -> None:
    result = zhuoji("forget", "--help", env={"LANG": "en_US.UTF-8"})
    assert result.stdout.startswith("Usage: zhuoji forget [OPTIONS]")
    assert "Drop every row of the named files (loaded or quarantined) from the" in result.stdout
    assert "--help          Show this message and exit." in result.stdout


def test_a_parse_error_in_chinese(tmp_path: Path) -> None:
    lines = SAMPLE.read_text(encoding="utf-8").splitlines()
    broken = tmp_path / "broken.jsonl"
    broken.write_text("\n".join([*lines[:3], lines[3][: len(lines[3]) // 2], *lines[4:]]) + "\n",
                      encoding="utf-8")
    zh = zhuoji("validate", str(broken), "--lang", "zh")
    assert zh.returncode == 2, zh.stderr
    line = next(x for x in zh.stdout.splitlines() if x.startswith("错误"))
    assert "第4行" in line and "这一行在 JSON 值的中间结束（被截断）" in line, zh.stdout
    assert english_left(line, str(broken)) == [], line
    audit = zhuoji("audit", str(broken), "--lang", "zh")
    assert "格式不符" in audit.stdout and "被截断" in audit.stdout, audit.stdout
    assert english_left(audit.stdout, str(broken)) == [], audit.stdout
    en = zhuoji("validate", str(broken), "--lang", "en")
    assert "line 4, game 't7-20261101-0002': the line ends in the middle of a JSON value " \
           "(truncated)" in en.stdout, en.stdout


def test_a_command_error_in_chinese(tmp_path: Path) -> None:
    zh = zhuoji("audit", str(SAMPLE), "--hand", "1", "--html", str(tmp_path / "p.html"),
                env={"LANG": "zh_CN.UTF-8"})
    assert zh.returncode == 2 and zh.stdout == ""
    assert zh.stderr.startswith("错误："), zh.stderr
    assert "有 2 局；请用 --game 选一局：t7-20261101-0002, t7-20261101-0003" in zh.stderr
    assert english_left(zh.stderr, str(SAMPLE)) == [], zh.stderr
    en = zhuoji("audit", str(SAMPLE), "--hand", "1", "--html", str(tmp_path / "p.html"))
    assert en.stderr == (f"error: {SAMPLE} holds 2 games; choose one with --game: "
                         "t7-20261101-0002, t7-20261101-0003\n")
    missing = zhuoji("audit", str(tmp_path / "nothing.json"), "--lang", "zh")
    assert missing.stderr.startswith("错误：") and "没有这个文件或文件夹" in missing.stderr
    db = tmp_path / "none.duckdb"
    no_db = zhuoji("sql", "SELECT 1", "--db", str(db), "--lang", "zh")
    assert no_db.returncode == 2
    assert no_db.stderr == f"错误：数据库 {db} 不存在；请用 `zhuoji ingest` 创建\n"


@pytest.mark.parametrize("args", [
    ["audit", "--bogus"],
    ["ingest", "x", "--workers", "abc"],
    ["ingest", "x", "--dask-address", "nowhere"],
    ["audit", "x", "--html", "o.html"],
    ["nosuch"],
], ids=["option", "integer", "dask-address", "html-needs-hand", "command"])
def test_usage_errors_in_chinese(args: list[str]) -> None:
    result = zhuoji("--lang", "zh", *args)
    assert result.returncode == 2
    line = result.stderr.strip()
    assert line.startswith("错误：") and "（见 `zhuoji" in line, line
    assert english_left(line) == [], line


def _read_terminal(fd: int, process: subprocess.Popen[bytes]) -> str:
    out = b""
    while True:
        ready, _, _ = select.select([fd], [], [], 120)
        if not ready:
            raise AssertionError(f"no output for 120 s: {out!r}")
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # the terminal's other end closed: the process ended
            break
        if not chunk:
            break
        out += chunk
    process.wait(timeout=120)
    return out.decode("utf-8")


def test_the_dashboard_progress_lines_in_chinese(tmp_path: Path) -> None:
    db = tmp_path / "w.duckdb"
    loaded = zhuoji("ingest", str(SAMPLE), "--db", str(db), "--quiet")
    assert loaded.returncode == 0, loaded.stderr
    lines = {}
    for lang in ("zh", "en"):
        parent, child = pty.openpty()  # a real terminal on standard error
        env = {k: v for k, v in os.environ.items() if k not in ("LC_ALL", "LC_MESSAGES")}
        process = subprocess.Popen(
            [sys.executable, "-c", ENTRY, "dashboard", "--db", str(db), "--out",
             str(tmp_path / f"site-{lang}"), "--workers", "1", "--lang", lang],
            stdout=subprocess.DEVNULL, stderr=child, stdin=subprocess.DEVNULL, cwd=ROOT,
            env={**env, **STRICT, "NO_COLOR": "1"},
        )
        os.close(child)
        try:
            lines[lang] = _read_terminal(parent, process).splitlines()
        finally:
            os.close(parent)
        assert process.returncode == 0, lines[lang]
    zh = [line for line in lines["zh"] if line.strip()]
    assert zh and all(line.startswith("仪表板：") for line in zh), zh
    assert any(line.startswith("仪表板：总览：已写入 ") for line in zh), zh
    assert any(line.startswith("仪表板：玩家：已写入 ") for line in zh), zh
    assert all(english_left(line) == [] for line in zh), zh
    en = [line for line in lines["en"] if line.strip()]
    assert any(re.fullmatch(r"dashboard: overview: \d+ pages? written \(\d+\.\d s\)", line)
               for line in en), en


@pytest.mark.parametrize(("args", "zh", "en"), [
    (["rules", "show", "nope"], "错误：未知的预设 'nope'；预设有：",
     "error: unknown preset 'nope'; the presets are: "),
    (["rules", "show", "guiyang", "--set", "bogus=1"], "错误：规则 'guiyang'：未知的设置 'bogus'",
     "error: ruleset 'guiyang': unknown setting 'bogus'"),
    (["rules", "show", "guiyang", "--set", "multiple_win=true"],
     "错误：规则 'guiyang'：未知的设置 'multiple_win'（是否想写 'multiple_winners'？）",
     "error: ruleset 'guiyang': unknown setting 'multiple_win' (did you mean "
     "'multiple_winners'?)"),
    (["rules", "show", "guiyang", "--set", "chicken_scope=1"],
     "错误：规则 'guiyang'：覆盖无效：设置 'chicken_scope' (chickens.scope) = 1：应为以下之一：",
     "error: ruleset 'guiyang': bad override: setting 'chicken_scope' (chickens.scope) = 1: "
     "expected one of "),
    (["rules", "diff", "guiyang", "changsha"],
     "错误：规则 'guiyang'（guizhou）与 'changsha'（changsha）属于不同玩法：其设置无法比较",
     "error: rulesets 'guiyang' (guizhou) and 'changsha' (changsha) are of different "
     "families: their settings do not compare"),
], ids=["unknown-preset", "unknown-setting", "did-you-mean", "wrong-type", "families"])
def test_the_engines_ruleset_errors_in_chinese(args: list[str], zh: str, en: str) -> None:
    """A preset, a setting or an override the engine refuses (rules/presets.py,
    rules/settings.py) is a message: Chinese under --lang zh, English as it was."""
    result = zhuoji(*args, "--lang", "zh")
    assert result.returncode == 2 and result.stderr.startswith(zh), result.stderr
    from zhuoji.rules.presets import preset_names

    assert english_left(result.stderr, *preset_names()) == [], result.stderr
    english = zhuoji(*args, "--lang", "en")
    assert english.returncode == 2 and english.stderr.startswith(en), english.stderr


# --- the labels of the commands' tables and lines ----------------------------------------------


def test_the_rules_tables_in_chinese() -> None:
    """rules list|show|diff|matrix: the column headers and the lines a command writes
    itself are Chinese (the presets' and families' titles are the family folders' data,
    shown as they are); the English is unchanged."""
    listed = zhuoji("rules", "list", "--lang", "zh")
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert any(line.startswith("玩法 guizhou：") and line.endswith("（108 张牌）")
               for line in lines), lines
    header = next(line for line in lines if "规则来源" in line).split()
    assert header == ["名称", "人数", "规则来源", "标题"], lines
    assert any(line.split()[:1] == ["guiyang（默认）"] for line in lines), lines
    shown = zhuoji("rules", "show", "guiyang-2p", "--lang", "zh").stdout.splitlines()
    assert shown[1:4] == ["玩法：guizhou", "规则来源：000_1f7fb64d63d6ccbe.txt, 贵阳麻将(1)",
                          "基于：guiyang（以下为合并后的值）"], shown
    changed = zhuoji("rules", "show", "guiyang", "--set", "players=3", "--lang", "zh")
    assert any(line.startswith("players") and line.endswith("# 命令行的 --set")
               for line in changed.stdout.splitlines()), changed.stdout
    diff = zhuoji("rules", "diff", "guiyang", "guiyang-2p", "--lang", "zh").stdout
    assert diff.splitlines()[0].split() == ["设置", "guiyang", "guiyang-2p"], diff
    same = zhuoji("rules", "diff", "guiyang", "guiyang", "--lang", "zh").stdout
    assert same == "guiyang 与 guiyang 的设置相同\n"
    matrix = zhuoji("rules", "matrix", "--lang", "zh").stdout
    assert "### 玩法 guizhou\n" in matrix and "\n| 设置 | `" in matrix
    assert "### family" not in matrix and "| setting |" not in matrix
    english = zhuoji("rules", "list", "--lang", "en").stdout.splitlines()
    assert any(line.startswith("family guizhou: ") and line.endswith(" (108 tiles)")
               for line in english)
    assert next(line for line in english if " seed " in line).split()[:4] == [
        "name", "players", "seed", "title"]
    assert zhuoji("rules", "diff", "guiyang", "guiyang").stdout == \
        "guiyang and guiyang have the same settings\n"
    assert "### family guizhou\n" in zhuoji("rules", "matrix", "--lang", "en").stdout


def test_server_status_in_chinese(tmp_path: Path) -> None:
    """zhuoji server status: its labels (and a server that does not run) in Chinese,
    aligned; the English lines as they were."""
    env = {"PREFECT_HOME": str(tmp_path), "PREFECT_API_URL": ""}
    zh = zhuoji("server", "status", "--lang", "zh", env=env)
    assert zh.returncode == 1, zh.stderr
    assert zh.stdout == (f"Prefect 主目录  {tmp_path}\n"
                         "服务器          未运行（下一次 `zhuoji ingest` 会启动一个）\n")
    en = zhuoji("server", "status", "--lang", "en", env=env)
    assert en.stdout == (f"prefect home  {tmp_path}\n"
                         "server        not running (the next `zhuoji ingest` starts one)\n")


def test_report_list_in_chinese() -> None:
    """zhuoji report --list: each report's description in Chinese (its file's ``-- zh:``
    line); the English, the JSON and the views' comments keep the English."""
    from zhuoji.flows.warehouse.reports import report_description, report_names

    zh = zhuoji("report", "--list", "--lang", "zh")
    assert zh.returncode == 0, zh.stderr
    lines = zh.stdout.splitlines()
    assert [line.split()[0] for line in lines] == report_names()
    for line in lines:
        assert re.search(r"[\u4e00-\u9fff]{4}", line), line
        assert english_left(line) == [], line
    assert "一位玩家按对局顺序的各手" in zh.stdout and "[--param player=...]" in zh.stdout
    en = zhuoji("report", "--list", "--lang", "en").stdout
    assert "player_history           One player's hands in play order" in en
    assert "zh:" not in en and not re.search(r"[\u4e00-\u9fff]", en)
    listed = zhuoji("report", "--list", "--format", "json", "--lang", "zh").stdout
    assert "zh:" not in listed and not re.search(r"[\u4e00-\u9fff]", listed)
    from zhuoji.flows.warehouse.catalog import view_comment, view_statements, without_zh_lines
    from zhuoji.flows.warehouse.reports import read_report

    for name in report_names():
        assert "zh:" not in report_description(name)
        text = read_report(name)
        assert "\n-- zh: " in text, name  # every report has its Chinese description ...
        # ... and the view, its comment and its digest are those of the file without it
        assert view_comment(name, text, "d") == view_comment(name, without_zh_lines(text), "d")
    made = view_statements({}, {"leaderboard": read_report("leaderboard")},
                           {"leaderboard": report_description("leaderboard")},
                           {"leaderboard": ()})
    assert made and not any("-- zh:" in statement.sql for statement in made)


def _on_a_terminal(*args: str) -> str:
    parent, child = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k not in ("LC_ALL", "LC_MESSAGES", "LANG")}
    process = subprocess.Popen(
        [sys.executable, "-c", ENTRY, *args], stdout=child, stderr=child,
        stdin=subprocess.DEVNULL, cwd=ROOT, env={**env, **STRICT, "NO_COLOR": "1",
                                                 "COLUMNS": "120"})
    os.close(child)
    try:
        return _read_terminal(parent, process)
    finally:
        os.close(parent)


def test_the_progress_bars_in_chinese(tmp_path: Path) -> None:
    """The bars of zhuoji ingest and zhuoji simulate on a real terminal: their words in
    Chinese (English as they were)."""
    out = _on_a_terminal("ingest", str(ROOT / "data" / "sample"), "--db",
                         str(tmp_path / "zh.duckdb"), "--lang", "zh")
    assert re.search(r"导入 \S* ?\d+/\d+ 文件数 [\d,]+ 手  [\d,]+ 手/秒", out), out
    assert "发现文件" in out
    en = _on_a_terminal("ingest", str(ROOT / "data" / "sample"), "--db",
                        str(tmp_path / "en.duckdb"), "--lang", "en")
    assert re.search(r"ingest \S* ?\d+/\d+ files [\d,]+ hands  [\d,]+ hands/s", en), en
    sim = _on_a_terminal("simulate", "--out", str(tmp_path / "sim"), "--games", "250",
                         "--lang", "zh")
    assert re.search(r"模拟 \S* ?2000/2000 手数 [\d,]+ 手/秒", sim), sim
    assert "模拟结果写入" in sim


def test_a_logs_unusable_ruleset_in_chinese(tmp_path: Path) -> None:
    """zhuoji audit of a game whose ruleset is an unknown preset or a bad override: the
    engine's refusal is Chinese under --lang zh; the English line and --json as they were."""
    import json

    source = ROOT / "data" / "sample" / "sim" / "document" / "sim-guiyang-2026-00000.json"
    game = json.loads(source.read_text(encoding="utf-8"))
    unknown = tmp_path / "unknown.json"
    unknown.write_text(json.dumps({**game, "ruleset": "nope"}), encoding="utf-8")
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({**game, "rule_overrides": {"chicken_scope": 1}}),
                     encoding="utf-8")
    gid = game["game_id"]
    zh = zhuoji("audit", str(unknown), "--lang", "zh")
    assert zh.returncode == 2, zh.stderr
    assert f"错误：{unknown}，牌局 '{gid}'：未知的预设 'nope'；预设有：" in zh.stdout, zh.stdout
    zh = zhuoji("audit", str(wrong), "--lang", "zh")
    assert (f"错误：{wrong}，牌局 '{gid}'：规则 'guiyang'：覆盖无效：设置 'chicken_scope' "
            "(chickens.scope) = 1：应为以下之一：'hand', 'hand_and_discards'") in zh.stdout
    en = zhuoji("audit", str(wrong), "--lang", "en")
    assert (f"error: {wrong}, game '{gid}': ruleset 'guiyang': bad override: setting "
            "'chicken_scope' (chickens.scope) = 1: expected one of 'hand', "
            "'hand_and_discards'") in en.stdout
    line = json.loads(zhuoji("audit", str(wrong), "--json", "--lang", "zh").stdout)
    assert line["error"]["message"] == (
        "ruleset 'guiyang': bad override: setting 'chicken_scope' (chickens.scope) = 1: "
        "expected one of 'hand', 'hand_and_discards'")
