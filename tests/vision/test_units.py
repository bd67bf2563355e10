"""Vision's pure parts: the models file, the text finder and its candidates, Tesseract's TSV."""

from __future__ import annotations

import pytest

from desktopd.settings import SettingsError, parse_settings
from desktopd.vision.find import closest, find
from desktopd.vision.model_config import ModelConfigError, parse_models
from desktopd.vision.tesseract import parse_tsv
from desktopd.vision.text import Box, Line, Word
from desktopd.vision.vendors import MalformedPlan, chat_action


def line(*words: tuple[str, int]) -> Line:
    made = tuple(Word(text, Box(x, 10, 10 * len(text), 12), 0.9) for text, x in words)
    return Line(made, Box.around([w.box for w in made]), 0.9)


def test_runs_of_words_match_in_reading_order_shortest_first():
    lines = [line(("Save", 0), ("as...", 50)), line(("Save", 200))]
    assert [m.text for m in find(lines, "save", exact=False)] == ["Save", "Save"]
    assert [m.text for m in find(lines, "Save as", exact=True)] == ["Save as..."]
    assert find(lines, "save", exact=True) == []
    assert closest(lines, "Sav")[0].text == "Save"


def test_tesseract_tsv_becomes_lines_of_words():
    tsv = ("level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n"
           "4\t1\t1\t1\t1\t0\t10\t20\t100\t12\t-1\t\n"
           "5\t1\t1\t1\t1\t1\t10\t20\t40\t12\t96.5\tHello\n"
           "5\t1\t1\t1\t1\t2\t60\t20\t50\t12\t91\tworld\n")
    (only,) = parse_tsv(tsv)
    assert only.text == "Hello world" and only.box == Box(10, 20, 100, 12)
    assert only.words[0].confidence == pytest.approx(0.965)


@pytest.mark.parametrize("text, problem", [
    ("[]", "expected"), ('{"models": {"a": {"api": "bard", "base_url": "u", "model": "m"}}}', "api"),
    ('{"models": {"a": {"api": "chat", "model": "m"}}}', "base_url"),
    ('{"models": {"a": {"api": "chat", "base_url": "u", "model": "m"}}, "default": "b"}', "default")])
def test_a_bad_models_file_is_refused_naming_the_field(text, problem):
    with pytest.raises(ModelConfigError, match=problem):
        parse_models(text)


def test_settings_refuse_an_unreadable_models_file(tmp_path):
    with pytest.raises(SettingsError, match="DESKTOPD_VISION_MODELS"):
        parse_settings([], {"DESKTOPD_VISION_MODELS": str(tmp_path / "missing.json")})
    good = tmp_path / "models.json"
    good.write_text('{"models": {"g": {"api": "chat", "base_url": "http://127.0.0.1:1/", "model": "m"}}}')
    models = parse_settings([], {"DESKTOPD_VISION_MODELS": str(good)}).vision_models
    assert models.pick(None).base_url == "http://127.0.0.1:1"


@pytest.mark.parametrize("answer", ["no json here", "{not json}", '{"x": 1}'])
def test_chat_answers_without_a_json_action_are_malformed(answer):
    with pytest.raises(MalformedPlan):
        chat_action(answer)
