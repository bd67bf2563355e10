"""Bearer auth, settings precedence and the refusal to expose an unauthenticated desktop."""

from __future__ import annotations

import io
import re
import subprocess
import sys

import pytest

from desktopd.settings import SettingsError, parse_settings
from httpapi.daemon import is_loopback


async def test_token_required_everywhere_but_health(make_client):
    client = await make_client(token="s3cret")
    for method, path in [("GET", "/api/v1/screenshot"), ("POST", "/api/v1/tablet"),
                         ("GET", "/api/v1/openapi.json"), ("POST", "/api/v1/execute")]:
        resp = await client.request(method, path)
        assert resp.status == 401, path
        assert (await resp.json())["error"] == "unauthorized"
        resp = await client.request(method, path, headers={"Authorization": "Bearer wrong"})
        assert resp.status == 401, path
    assert (await client.get("/health")).status == 200
    resp = await client.get("/api/v1/openapi.json", headers={"Authorization": "Bearer s3cret"})
    assert resp.status == 200


def test_settings_flags_override_env(tmp_path):
    token_file = tmp_path / "token"
    token_file.write_text("from-file\n")
    env = {"DISPLAY": ":7", "DESKTOPD_HOST": "127.0.0.2", "DESKTOPD_PORT": "9000",
           "DESKTOPD_TOKEN_FILE": str(token_file), "DESKTOPD_LOG_LEVEL": "debug"}
    s = parse_settings([], env)
    assert (s.display, s.host, s.port, s.token, s.log_level) == (":7", "127.0.0.2", 9000, "from-file", "DEBUG")
    s = parse_settings(["--display", ":3", "--port", "81"], {**env, "DESKTOPD_TOKEN": "env-wins"})
    assert (s.display, s.port, s.token) == (":3", 81, "env-wins")
    assert "env-wins" not in repr(s)


@pytest.mark.parametrize("host", ["0.0.0.0", "10.1.2.3", "::", "example.org"])
def test_non_loopback_without_token_is_refused(host):
    with pytest.raises(SettingsError, match="non-loopback"):
        parse_settings(["--host", host], {})
    assert parse_settings(["--host", host], {"DESKTOPD_TOKEN": "t"}).token == "t"
    assert parse_settings(["--host", host, "--insecure"], {}).insecure
    assert parse_settings(["--host", host], {"DESKTOPD_INSECURE": "1"}).insecure


def test_loopback_detection():
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.1")


def test_main_exits_2_with_a_clear_message():
    proc = subprocess.run([sys.executable, "-m", "desktopd", "--host", "0.0.0.0"],
                          capture_output=True, text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin"})
    assert proc.returncode == 2
    assert "refusing to listen on non-loopback" in proc.stderr and "DESKTOPD_TOKEN" in proc.stderr


def test_bad_port_env_exits_2():
    proc = subprocess.run([sys.executable, "-m", "desktopd"], capture_output=True, text=True,
                          timeout=60, env={"PATH": "/usr/bin:/bin", "DESKTOPD_PORT": "eighty"})
    assert proc.returncode == 2 and "DESKTOPD_PORT" in proc.stderr


async def test_oversized_body_is_a_json_413(client):
    resp = await client.put("/api/v1/clipboard", data=io.BytesIO(b"x" * (17 << 20)),
                            headers={"Content-Type": "text/plain"})
    assert resp.status == 413
    assert (await resp.json())["error"] == "request_entity_too_large"


@pytest.mark.parametrize("daemon", ["desktopd", "sidecar"])
@pytest.mark.parametrize("argv, message", [
    (["--port", "70000"], "port must be 0..65535, got 70000"),
    (["--log-level", "loud"], "log level must be one of DEBUG, INFO, WARNING, ERROR"),
    (["--host", "0.0.0.0"], "refusing to listen on non-loopback address '0.0.0.0' without a token"),
])
def test_both_daemons_refuse_the_same_bad_common_settings(daemon, argv, message):
    import sidecar.settings

    parse, error = ((parse_settings, SettingsError) if daemon == "desktopd" else
                    (sidecar.settings.parse_settings, sidecar.settings.SettingsError))
    extra = ["--display", ":9"] if daemon == "sidecar" else []
    with pytest.raises(error, match=re.escape(message)):
        parse(argv + extra, env={}).check()
