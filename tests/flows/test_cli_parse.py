from __future__ import annotations

import shutil
from pathlib import Path

from typer.testing import CliRunner

from zhuoji.flows.cli.main import app
from zhuoji.parsers.read import generate_games, is_log_path
from zhuoji.parsers.schema import format_json_schema

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample"
runner = CliRunner()


def _sample_counts() -> tuple[int, int]:
    """Log files below data/sample (fault manifests are not logs) and the games in them."""
    files = sorted(p for p in SAMPLE.rglob("*") if is_log_path(p))
    assert len(files) >= 3 and not any(p.name == "faults.jsonl" for p in files)
    return len(files), sum(1 for p in files for _ in generate_games(p))


def test_validate_the_samples_exits_0() -> None:
    result = runner.invoke(app, ["validate", str(SAMPLE)])
    assert result.exit_code == 0, result.output
    files, games = _sample_counts()
    assert f"{files} files: {files} valid, 0 malformed; {games} games parsed, 0 malformed" in (
        result.output
    )
    assert "error" not in result.output


def test_validate_reports_a_truncated_file_and_still_validates_the_good_one(tmp_path: Path) -> None:
    good = SAMPLE / "t7-20261101.jsonl"
    shutil.copy(good, tmp_path / "good.jsonl")
    text = good.read_bytes()
    (tmp_path / "cut.jsonl").write_bytes(text[: len(text) // 2])
    result = runner.invoke(app, ["validate", str(tmp_path)])
    assert result.exit_code == 2
    lines = result.output.splitlines()
    errors = [line for line in lines if line.startswith("error ")]
    assert len(errors) == 1
    assert errors[0].startswith(f"error {tmp_path / 'cut.jsonl'} line ")
    assert "truncated" in errors[0]
    assert f"ok    {tmp_path / 'good.jsonl'}: 2 games" in lines
    # The cut falls in the second game: the first game of the cut file still parses.
    assert lines[-1] == "2 files: 1 valid, 1 malformed; 3 games parsed, 1 malformed"


def test_validate_takes_files_globs_and_reports_missing_paths(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["validate", "-q", str(SAMPLE / "*"), str(tmp_path / "nothing-*.jsonl")]
    )
    assert result.exit_code == 2
    assert f"error {tmp_path / 'nothing-*.jsonl'}: no file matches this pattern" in result.output
    files, games = _sample_counts()
    assert (
        f"{files} files: {files} valid, 0 malformed; {games} games parsed, 0 malformed; "
        "1 not found or not readable"
    ) in result.output
    assert "ok " not in result.output


def test_validate_a_bad_name(tmp_path: Path) -> None:
    (tmp_path / "log.txt").write_text("{}")
    result = runner.invoke(app, ["validate", str(tmp_path / "log.txt")])
    assert result.exit_code == 2
    assert "not a log file name" in result.output


def test_schema_prints_the_generated_schema() -> None:
    result = runner.invoke(app, ["schema"])
    assert result.exit_code == 0
    assert result.output == format_json_schema()


def test_convert_document_stream_document_is_lossless(tmp_path: Path) -> None:
    source = SAMPLE / "t7-20261101-0001.json"
    stream = tmp_path / "x.ndjson.gz"
    back = tmp_path / "x.json"
    first = runner.invoke(app, ["convert", str(source), str(stream)])
    assert first.exit_code == 0, first.output
    assert "wrote 1 game to" in first.output
    second = runner.invoke(app, ["convert", str(stream), str(back)])
    assert second.exit_code == 0, second.output
    assert list(generate_games(back)) == list(generate_games(source))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.json", "x.ndjson.gz"]


def test_convert_refuses_bad_input_and_leaves_nothing(tmp_path: Path) -> None:
    text = (SAMPLE / "t7-20261101.jsonl").read_bytes()
    (tmp_path / "cut.jsonl").write_bytes(text[:-30])
    result = runner.invoke(
        app, ["convert", str(tmp_path / "cut.jsonl"), str(tmp_path / "out.jsonl")]
    )
    assert result.exit_code == 2
    assert "truncated" in result.output
    many = runner.invoke(
        app, ["convert", str(SAMPLE / "t7-20261101.jsonl"), str(tmp_path / "one.json")]
    )
    assert many.exit_code == 2 and "a document file holds one game, got 2" in many.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cut.jsonl"]
