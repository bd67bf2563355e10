"""The access log leaves out successful health probes (containers probe every 3 s) but keeps
everything else, failed probes included."""

from __future__ import annotations

import logging
from types import SimpleNamespace

import pytest
from aiohttp.test_utils import make_mocked_request

from httpapi.daemon import ProbeQuietAccessLogger


def _entry(path: str, status: int):
    request = make_mocked_request("GET", path)
    response = SimpleNamespace(status=status, body_length=2, headers={})
    return request, response


@pytest.mark.parametrize("path, status, logged", [
    ("/health", 200, False),
    ("/health", 503, True),
    ("/api/v1/screenshot", 200, True),
])
def test_health_probes_are_left_out_of_the_access_log(caplog, path, status, logged):
    logger = logging.getLogger("test.access")
    access = ProbeQuietAccessLogger(logger, '%r %s')
    with caplog.at_level(logging.INFO, logger="test.access"):
        access.log(*_entry(path, status), 0.001)
    assert bool(caplog.records) is logged
    if logged:
        assert caplog.records[0].getMessage() == f"GET {path} HTTP/1.1 {status}"
