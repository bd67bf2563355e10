"""Unit tests of the /layout body encoder: reuse while a layout is unchanged, ETags that follow
the bytes, gzip and header parsing (no browser)."""

from __future__ import annotations

import gzip
import json

from sidecar.layout.output.encoding import LayoutEncoder, accepts_gzip, etag_matches


def _body(layout_a: dict, layout_b: dict | None = None, title: str = "A") -> dict:
    tabs = [{"id": "T1", "url": "http://a/", "title": title, "layout": layout_a}]
    if layout_b is not None:
        tabs.append({"id": "T2", "url": "http://b/", "title": "B", "layout": layout_b})
    else:
        tabs.append({"id": "T2", "url": "http://b/", "title": "B", "layout": None,
                     "error": {"error": "tab_unresponsive", "detail": "ü"}})
    return {"tabs": tabs}


def test_encoded_body_is_the_json_of_the_body():
    layout = {"nodes": [{"name": "Grüße", "bounds": None}], "nodeCount": 1}
    body = _body(layout)
    encoded = LayoutEncoder().encode(body)
    assert json.loads(encoded.data) == body
    assert encoded.data.isascii()                    # non-ASCII as \\u escapes: faster


def test_an_unchanged_layout_is_reused_and_keeps_its_etag():
    encoder = LayoutEncoder()
    layout = {"nodes": [{"name": "x"}]}
    first = encoder.encode(_body(layout))
    layout["nodes"][0]["name"] = "mutated in place"   # the builder never does this: proves reuse
    second = encoder.encode(_body(layout))
    assert second.data == first.data and second.etag == first.etag
    assert encoder.hits == 1 and encoder.misses == 1


def test_a_new_layout_object_or_header_changes_the_etag():
    encoder = LayoutEncoder()
    first = encoder.encode(_body({"nodes": []}))
    equal_but_new = encoder.encode(_body({"nodes": []}))
    assert equal_but_new.data == first.data and equal_but_new.etag != first.etag
    layout = {"nodes": []}
    one = encoder.encode(_body(layout))
    retitled = encoder.encode(_body(layout, title="New title"))
    assert retitled.etag != one.etag and json.loads(retitled.data)["tabs"][0]["title"] == "New title"


def test_query_options_have_separate_entries():
    encoder = LayoutEncoder()
    full, buttons = {"nodes": [1, 2, 3]}, {"nodes": [2]}
    encoder.encode(_body(full), "full")
    encoder.encode(_body(buttons), "buttons")
    again = encoder.encode(_body(full), "full")
    assert json.loads(again.data)["tabs"][0]["layout"] == full
    assert encoder.hits == 1


def test_cache_is_bounded_by_bytes():
    encoder = LayoutEncoder(cache_bytes=1000)
    layouts = [{"nodes": ["x" * 300], "i": i} for i in range(10)]
    for i, layout in enumerate(layouts):
        encoder.encode({"tabs": [{"id": f"T{i}", "layout": layout}]})
    assert 0 < encoder.cached_bytes <= 1000


def test_gzip_round_trips_and_is_cached():
    encoder = LayoutEncoder()
    encoded = encoder.encode(_body({"nodes": [{"name": "n%d" % i} for i in range(500)]}))
    packed = encoder.gzipped(encoded)
    assert gzip.decompress(packed) == encoded.data and len(packed) < len(encoded.data)
    assert encoder.gzipped(encoded) is packed


def test_if_none_match_parsing():
    assert etag_matches('"a-1"', '"a-1"')
    assert etag_matches('W/"a-1"', '"a-1"')
    assert etag_matches('"x", "a-1"', '"a-1"')
    assert etag_matches("*", '"a-1"')
    assert not etag_matches('"a-2"', '"a-1"')
    assert not etag_matches(None, '"a-1"')
    assert not etag_matches("", '"a-1"')


def test_accept_encoding_parsing():
    assert accepts_gzip("gzip, deflate")
    assert accepts_gzip("br;q=1.0, gzip;q=0.5")
    assert accepts_gzip("*")
    assert not accepts_gzip("gzip;q=0")
    assert not accepts_gzip("identity")
    assert not accepts_gzip(None)
    assert not accepts_gzip("deflate, br")
