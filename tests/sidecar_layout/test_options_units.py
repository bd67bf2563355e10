"""Unit tests of LayoutOptions: every query parameter parsed, bad ones a 422 naming the parameter."""

from __future__ import annotations


import pytest

from httpapi.errors import ApiError
from sidecar.layout.output.options import LayoutOptions


def test_options_parse_every_parameter():
    options = LayoutOptions.from_query({"tab": " ABC ", "interesting": "true", "roles": "Button, link",
                                        "max_nodes": "50", "fresh": "yes"})
    assert options == LayoutOptions(tab="ABC", interesting=True, roles=frozenset({"button", "link"}),
                                    max_nodes=50, fresh=True)
    assert LayoutOptions.from_query({}) == LayoutOptions()
    assert LayoutOptions.from_query({"interesting": ""}).interesting is True


@pytest.mark.parametrize("query, field", [
    ({"max_nodes": "0"}, "max_nodes"), ({"max_nodes": "-3"}, "max_nodes"),
    ({"max_nodes": "1e3"}, "max_nodes"), ({"interesting": "sometimes"}, "interesting"),
    ({"roles": " , "}, "roles"), ({"roles": "button;drop"}, "roles"), ({"tab": "  "}, "tab"),
    ({"maxnodes": "3"}, "maxnodes"), ({"fresh": "always"}, "fresh"),
])
def test_bad_options_are_422_naming_the_parameter(query, field):
    with pytest.raises(ApiError) as raised:
        LayoutOptions.from_query(query)
    assert raised.value.status == 422
    assert raised.value.field == field
    assert raised.value.body()["error"] == "invalid_field"


# -- geometry ------------------------------------------------------------------------------
