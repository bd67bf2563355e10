"""The parts of the model engine on their own: the ONNX writer (run by the real ONNX Runtime),
best-path decoding, word boxes from ink, and the traineddata reader's refusals."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnxruntime
import pytest
from PIL import Image, ImageDraw, ImageFont

from desktopd.vision import onnx_proto as proto
from desktopd.vision import tess_model
from desktopd.vision.ctc import StepWord, words
from desktopd.vision.line_net import LineNet, PreparedLine, prepare
from desktopd.vision.word_boxes import INK_DIFFERENCE, boxes
from testbed.ocr_truth import FONT_DIR, draw_line

BLANK = 3
CODES = {0: " ", 1: "a", 2: "b"}


def run(model: bytes, **inputs: np.ndarray) -> list[np.ndarray]:
    session = onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"])
    return session.run(None, inputs)


def test_a_written_graph_runs_in_onnx_runtime_and_computes_what_numpy_does():
    rng = np.random.default_rng(1)
    weights = rng.standard_normal((4, 3)).astype(np.float32)
    bias = rng.standard_normal(3).astype(np.float32)
    model = proto.model(
        "t",
        [proto.node("Transpose", ["x"], ["xt"], perm=[1, 0]),
         proto.node("MatMul", ["xt", "w"], ["xw"]),
         proto.node("Add", ["xw", "b"], ["logits"]),
         proto.node("Softmax", ["logits"], ["y"], axis=-1)],   # a negative int attribute
        [proto.tensor("w", weights), proto.tensor("b", bias)],
        [proto.value_info("x", proto.FLOAT, [4, "n"])],
        [proto.value_info("y", proto.FLOAT, ["n", 3])])
    x = rng.standard_normal((4, 5)).astype(np.float32)
    (y,) = run(model, x=x)
    logits = x.T @ weights + bias
    expected = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(y, expected, rtol=1e-5)


def probabilities(path: list[int]) -> np.ndarray:
    """One step per code of ``path``, that code at 0.9 (the 'b' at step 4 only 0.6)."""
    out = np.full((len(path), 4), 0.02, np.float32)
    for step, code in enumerate(path):
        out[step, code] = 0.6 if step == 4 else 0.9
    return out


def test_best_path_merges_repeats_drops_blanks_and_splits_words_at_spaces():
    #        a  a  blank a  b  blank space space b  a
    path = [1, 1, BLANK, 1, 2, BLANK, 0, 0, 2, 1]
    found = words(probabilities(path), BLANK, CODES)
    assert found == [StepWord("aab", 0, 4, pytest.approx(0.6)), StepWord("ba", 8, 9, pytest.approx(0.9))]
    assert words(np.zeros((0, 4), np.float32), BLANK, CODES) == []
    assert words(probabilities([BLANK, 0, BLANK]), BLANK, CODES) == []


def test_word_boxes_are_the_ink_between_the_gaps_to_the_neighbours():
    image = Image.new("L", (400, 30), 255)
    draw = ImageDraw.Draw(image)
    truth = draw_line(draw, (10, 6), ["Invoice", "gyp", "Total"], ImageFont.truetype(f"{FONT_DIR}/DejaVuSans.ttf", 14), 0)
    # Steps (3 model pixels each at scale 1) somewhere inside each word, as a recogniser gives them.
    steps = [StepWord(t.text, (t.box.x + 4) // 3, (t.box.x + t.box.width - 6) // 3, 0.9) for t in truth]
    pixels = np.asarray(image)
    found = boxes(steps, 1.0, pixels, 255)
    ink = []   # the true ink box of each word: its darker-than-background pixels
    for t in truth:
        x0, y0 = t.box.x - 2, t.box.y - 2
        ys, xs = np.nonzero(pixels[y0:t.box.y + t.box.height + 2, x0:t.box.x + t.box.width + 2] < 255 - INK_DIFFERENCE)
        ink.append((x0 + xs.min(), y0 + ys.min(), xs.max() - xs.min() + 1, ys.max() - ys.min() + 1))
    assert [(b.x, b.y, b.width, b.height) for b in found] == ink


def test_the_reader_takes_the_english_model_apart():
    model = tess_model.load()
    assert model.height == 36 and model.pool == (3, 3)
    assert [layer.hidden for layer in (model.column, *model.along)] == [48, 96, 96, 192]
    assert model.code_text[0] == " " and model.null_code not in model.code_text
    assert {"A", "z", "0", "/", "."} <= set(model.code_text.values())


def test_a_damaged_or_foreign_file_is_refused_by_name(tmp_path: Path):
    whole = tess_model.DEFAULT_TRAINEDDATA.read_bytes()
    cut = tmp_path / "cut.traineddata"
    cut.write_bytes(whole[:200_000])   # the LSTM part ends inside its weights
    with pytest.raises(tess_model.ModelFormatError, match="ends early"):
        tess_model.load(cut)
    foreign = tmp_path / "foreign.traineddata"
    foreign.write_bytes(b"\x89PNG\r\n" + bytes(100))
    with pytest.raises(tess_model.ModelFormatError, match="not a traineddata"):
        tess_model.load(foreign)


def test_a_line_reads_the_same_alone_and_padded_in_a_batch_beside_a_wider_one():
    """Each line's length goes to ONNX Runtime: the backward LSTM starts at the line's end, not
    at the batch's padding."""
    model = tess_model.load()
    net = LineNet(model)
    font = ImageFont.truetype(f"{FONT_DIR}/DejaVuSans.ttf", 14)

    def line(text: str) -> PreparedLine:
        image = Image.new("L", (12 + round(font.getlength(text)), 24), 255)
        ImageDraw.Draw(image).text((6, 4), text, font=font, fill=0)
        return prepare(image, model.height)

    short, wide = line("Invoice 2024"), line("Shipping address and the country it goes to, in full")
    (alone,) = net.run([short])
    together = net.run([wide, short])[1]
    assert together.shape == alone.shape
    np.testing.assert_allclose(together, alone, atol=1e-4)
