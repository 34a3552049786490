"""The engine's and the parsers' messages carry their template and values
(:class:`zhuoji.rules.messages.Message`); their Chinese is rendered from those
(:func:`zhuoji.rules.glossary.render`), and is what the glossary gave them when it read the
English back (``tests/rules/data/messages_zh.json``, see ``tests/rules/message_corpus.py``)."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest

from tests.rules import message_corpus as corpus
from zhuoji.flows.text.messages import malformed_text
from zhuoji.parsers.errors import MalformedLogError
from zhuoji.rules.glossary import glossary, render
from zhuoji.rules.messages import Message


@pytest.fixture(scope="module")
def produced(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, str | None, object]]:
    return list(corpus.messages(corpus.simulate(tmp_path_factory.mktemp("corpus") / "sim")))


def test_every_message_renders_the_chinese_it_had(
    produced: list[tuple[str, str | None, object]],
) -> None:
    expected = json.loads(corpus.FIXTURE.read_text(encoding="utf-8"))
    seen: dict[str, str] = {}
    for kind, family, message in produced:
        if kind == "malformed":
            assert isinstance(message, MalformedLogError)
            chinese = malformed_text(message, "zh")
        else:
            assert isinstance(message, str)
            chinese = render(message, "zh", family)
            assert render(message, "en", family) == message
        seen[corpus.key(kind, family, str(message))] = chinese
    assert seen.keys() == expected.keys()
    differ = {k: (seen[k], expected[k]) for k in seen if seen[k] != expected[k]}
    assert differ == {}


def test_a_message_is_its_english_and_keeps_its_values() -> None:
    held = Message("seat {seat} holds {t:tiles}", 0, "123m")
    pong = Message("seat {seat} pongs {tile} from seat {from}", 0, "9m", 2)
    message = Message("{e:event}{r:after_event}", pong,
                      Message(" without two {tile}: {held}", "9m", held))
    assert message == "seat 0 pongs 9m from seat 2 without two 9m: seat 0 holds 123m"
    assert isinstance(message, str)
    assert message.params == {"e": pong, "r": message.values[1]}
    assert render(message) == "座位0碰座位2的9万，但手中没有两张9万：座位0手牌 123万"
    copy = pickle.loads(pickle.dumps(message))
    assert copy == message and copy.template == message.template
    assert render(copy) == render(message)
    assert json.dumps({"m": message}) == json.dumps({"m": str(message)})


def test_repeated_values_are_joined_in_each_language() -> None:
    message = Message("seats {s:seat*, }", (0, 2))
    assert message == "seats 0, 2"
    assert render(message, group="seats") == "座位0、2"


def test_a_clause_the_glossary_lacks_leaves_the_message_english() -> None:
    message = Message("{k:kongname} does not score ({why:whykong})",
                      Message("seat {seat}'s {k:kongkind} kong {c:cjk} of {tile}", 1, "added",
                              "转弯豆", "5m"),
                      "some reason no template has")
    assert render(message) == message
    assert render(Message("no template says this")) == "no template says this"


def test_a_template_takes_as_many_values_as_it_has_placeholders() -> None:
    with pytest.raises(TypeError, match="takes 2 values, not 1"):
        Message("seat {seat} draws {tile}", 0)


def test_every_message_template_of_the_code_is_in_the_glossary() -> None:
    """Each ``Message("...")`` written in rules/ and parsers/ (and each explanation line a
    settlement says, ``book.say("...", ...)``) names a template of the glossary (the group
    ``message`` or a clause's)."""
    import re

    root = Path(corpus.ROOT)
    templates = {t.english for group in glossary().templates.values() for t in group}
    written = set()
    for folder in ("rules", "parsers"):
        for path in (root / folder).rglob("*.py"):
            text = path.read_text("utf-8")
            for m in re.finditer(r'(?:\bMessage|\bcached|\.say)\(\s*((?:"[^"\n]*"\s*)+)', text):
                written.add("".join(re.findall(r'"([^"\n]*)"', m.group(1))))
    written.discard("")
    assert written, "no message template found in the code"
    assert sorted(written - templates) == []
