"""Every message the audit of the repository's logs produces, with the family whose words
show it: what ``tests/rules/test_messages.py`` renders in Chinese and compares with
``tests/rules/data/messages_zh.json`` (the Chinese the audit printed before the messages
carried their template and values).

``python -m tests.rules.message_corpus --write`` rewrites the file with the current
Chinese of each message (review the difference before committing it).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from zhuoji.flows.audit.files import FileFault, generate_file_audits
from zhuoji.parsers.errors import MalformedLogError
from zhuoji.rules.families import family_of

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = Path(__file__).parent / "data" / "messages_zh.json"
FOLDERS = ("data", "tests/data")
NOT_LOGS = ("warehouse_v22",)
"""Folders of :data:`FOLDERS` holding no logs (a warehouse of an earlier release and its
reports, for the migration's test)."""


SIMULATE = ("--ruleset", "all", "--games", "4", "--faults", "0.9", "--seed", "31", "--lang",
            "en")
"""The simulated games added to the corpus (every preset, most hands with a defect)."""


def simulate(out: Path) -> Path:
    """Write the simulated games of :data:`SIMULATE` into ``out`` (same seed, same bytes)."""
    subprocess.run([sys.executable, "-c", "from zhuoji.flows.cli.main import main; main()",
                    "simulate", "--out", str(out), *SIMULATE], check=True, capture_output=True)
    return out


def corpus_files(simulated: Path) -> list[Path]:
    roots = [ROOT / folder for folder in FOLDERS] + [simulated]
    return sorted(p for root in roots for p in root.rglob("*")
                  if p.is_file() and p.suffix != ".md" and "schema" not in p.parts
                  and not any(name in p.parts for name in NOT_LOGS))


def messages(simulated: Path) -> Iterator[tuple[str, str | None, object]]:
    """``(kind, family, message)`` for each finding, ledger detail and explanation line of
    every hand, and each malformed file or game (``kind`` ``malformed``: the error), of
    the repository's logs and the simulated ones in ``simulated``."""
    for path in corpus_files(simulated):
        shown = str(path.relative_to(simulated.parent if simulated in path.parents else ROOT))
        for item in generate_file_audits(path):
            if isinstance(item, FileFault):
                e = item.error
                yield "malformed", None, MalformedLogError(
                    e.reason, path=shown, line=e.line, column=e.column, json_path=e.json_path,
                    game_id=e.game_id, more=e.more)
                continue
            if item.ruleset is None:
                continue
            words = family_of(item.ruleset).name
            for hand in item.hands:
                for v in hand.findings:
                    yield "finding", words, v.message
                settlement = hand.settlement
                if settlement is None:
                    continue
                for i in settlement.items:
                    if i.detail:
                        yield "detail", words, i.detail
                for line in settlement.explanation:
                    yield "explanation", words, line


def key(kind: str, family: str | None, english: str) -> str:
    return f"{kind}|{family or ''}|{english}"


def _write() -> None:
    from zhuoji.flows.text.messages import malformed_text
    from zhuoji.rules.glossary import translate

    out: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as tmp:
        found = list(messages(simulate(Path(tmp) / "sim")))
    for kind, family, message in found:
        if kind == "malformed":
            out[key(kind, family, str(message))] = malformed_text(message, "zh")  # type: ignore[arg-type]
        else:
            out[key(kind, family, str(message))] = translate(str(message), family=family)
    FIXTURE.write_text(json.dumps(dict(sorted(out.items())), ensure_ascii=False, indent=0)
                       + "\n", encoding="utf-8")
    print(f"{len(out)} messages written to {FIXTURE}")


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        _write()
    else:
        sys.exit("usage: python -m tests.rules.message_corpus --write")
