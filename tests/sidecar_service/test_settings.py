"""CLI flags, env fallbacks and refusals of the sidecar's settings."""

from __future__ import annotations

import logging

import pytest

from sidecar.settings import SettingsError, parse_settings


def test_defaults_are_loopback_8122_and_display_from_env() -> None:
    settings = parse_settings([], {"DISPLAY": ":7"})
    assert (settings.host, settings.port, settings.display) == ("127.0.0.1", 8122, ":7")
    assert settings.urls == () and settings.token is None and settings.cdp_port is None
    assert not settings.headless and not settings.kiosk and settings.window_size is None


def test_env_fallbacks() -> None:
    env = {"SIDECAR_HOST": "127.0.0.2", "SIDECAR_PORT": "9000", "SIDECAR_URLS": "http://a/ http://b/",
           "CHROMIUM_PATH": "/opt/chrome", "SIDECAR_KIOSK": "1", "SIDECAR_HEADLESS": "true",
           "SIDECAR_WINDOW_SIZE": "1024x768", "CHROMIUM_FLAGS": "--lang=de '--user-agent=a b'",
           "SIDECAR_CDP_PORT": "9222"}
    settings = parse_settings([], env)
    assert settings.host == "127.0.0.2" and settings.port == 9000
    assert settings.urls == ("http://a/", "http://b/")
    assert settings.chromium_path == "/opt/chrome"
    assert settings.kiosk and settings.headless
    assert settings.window_size == (1024, 768)
    assert settings.chromium_flags == ("--lang=de", "--user-agent=a b")
    assert settings.cdp_port == 9222


def test_flags_win_over_env() -> None:
    settings = parse_settings(["--port", "1234", "--window-size", "800,600", "http://x/",
                               "--chromium-flag=--force-device-scale-factor=2"],
                              {"SIDECAR_PORT": "9000", "SIDECAR_URLS": "http://env/",
                               "CHROMIUM_FLAGS": "--lang=de"})
    assert settings.port == 1234 and settings.window_size == (800, 600)
    assert settings.urls == ("http://x/",)
    assert settings.chromium_flags == ("--lang=de", "--force-device-scale-factor=2")


def test_token_sources_and_desktopd_fallback(tmp_path) -> None:
    secret = tmp_path / "token"
    secret.write_text("from-file\n")
    assert parse_settings([], {"SIDECAR_TOKEN": "s"}).token == "s"
    assert parse_settings([], {"SIDECAR_TOKEN_FILE": str(secret)}).token == "from-file"
    assert parse_settings([], {"DESKTOPD_TOKEN": "d"}).token == "d"
    assert parse_settings([], {"DESKTOPD_TOKEN_FILE": str(secret)}).token == "from-file"
    assert parse_settings([], {"SIDECAR_TOKEN": "s", "DESKTOPD_TOKEN": "d"}).token == "s"
    assert "from-file" not in repr(parse_settings([], {"SIDECAR_TOKEN_FILE": str(secret)}))


def test_refuses_a_public_address_without_a_token() -> None:
    with pytest.raises(SettingsError, match="without a token"):
        parse_settings(["--host", "0.0.0.0"], {})
    assert parse_settings(["--host", "0.0.0.0"], {"SIDECAR_TOKEN": "t"}).host == "0.0.0.0"
    assert parse_settings(["--host", "0.0.0.0", "--insecure"], {}).insecure
    assert parse_settings(["--host", "0.0.0.0"], {"SIDECAR_INSECURE": "1"}).insecure


@pytest.mark.parametrize("argv, env, message", [
    (["--window-size", "big"], {}, "window size"),
    (["--port", "http"], {}, "port"),
    ([], {"SIDECAR_PORT": "70000"}, "port"),
    (["--cdp-port", "0x"], {}, "CDP port"),
    (["--cdp-timeout", "0"], {}, "timeouts"),
    (["--restart-backoff", "-1"], {}, "backoff"),
    ([], {"CHROMIUM_FLAGS": "--user-agent='unterminated"}, "CHROMIUM_FLAGS"),
    (["--log-level", "chatty"], {}, "log level"),
])
def test_bad_values_name_the_setting(argv: list[str], env: dict, message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        parse_settings(argv, env)


def test_unreadable_token_file_is_a_settings_error(tmp_path) -> None:
    with pytest.raises(SettingsError, match="token file"):
        parse_settings([], {"SIDECAR_TOKEN_FILE": str(tmp_path / "missing")})


def test_cdp_is_exposed_on_the_network_only_with_a_token_and_bounds_and_order_defaults() -> None:
    with pytest.raises(SettingsError, match="needs a token"):
        parse_settings(["--expose-cdp", "0.0.0.0:9333"], {})
    assert parse_settings(["--expose-cdp", "9333"], {}).expose_cdp == ("127.0.0.1", 9333)
    exposed = parse_settings(["--expose-cdp", "0.0.0.0:9333"], {"SIDECAR_TOKEN": "t" * 24})
    assert exposed.expose_cdp == ("0.0.0.0", 9333)
    assert parse_settings([], {"SIDECAR_EXPOSE_CDP": "[::1]:9444"}).expose_cdp == ("::1", 9444)
    with pytest.raises(SettingsError, match="HOST"):
        parse_settings(["--expose-cdp", "nine"], {})
    defaults = parse_settings([], {})
    assert (defaults.bounds_space, defaults.tab_order) == ("document", "front")
    chosen = parse_settings([], {"SIDECAR_BOUNDS_SPACE": "Viewport", "SIDECAR_TAB_ORDER": "strip"})
    assert (chosen.bounds_space, chosen.tab_order) == ("viewport", "strip")
    assert parse_settings(["--bounds-space", "screen"], {"SIDECAR_BOUNDS_SPACE": "viewport"}).bounds_space == "screen"
    with pytest.raises(SettingsError, match="bounds space"):
        parse_settings(["--bounds-space", "page"], {})
    with pytest.raises(SettingsError, match="tab order"):
        parse_settings([], {"SIDECAR_TAB_ORDER": "newest"})


def test_layout_strategies_are_switched_by_name_and_a_wrong_name_is_refused():
    from sidecar.layout.reading.readers import NAMES, readers_named
    from sidecar.settings import LAYOUT_STRATEGIES

    assert parse_settings([], {}).layout_strategies == LAYOUT_STRATEGIES
    # Every reader but the whole read (always there) has its switch.
    assert set(NAMES) - {"whole"} <= set(LAYOUT_STRATEGIES)
    chosen = parse_settings([], {"SIDECAR_LAYOUT_STRATEGIES": " Patch, refresh "}).layout_strategies
    assert chosen == ("patch", "refresh")
    assert [r.name for r in readers_named(chosen)] == ["patch", "whole"]
    assert parse_settings(["--layout-strategies", "none"], {}).layout_strategies == ()
    assert parse_settings([], {"SIDECAR_LAYOUT_STRATEGIES": ""}).layout_strategies == LAYOUT_STRATEGIES
    assert [r.name for r in readers_named(())] == ["whole"]
    with pytest.raises(SettingsError, match="layout strategies"):
        parse_settings([], {"SIDECAR_LAYOUT_STRATEGIES": "reuse,guess"})


def test_a_removed_layout_strategy_is_ignored_with_one_warning(caplog):
    from sidecar.settings import LAYOUT_STRATEGIES

    assert "sections" not in LAYOUT_STRATEGIES
    with caplog.at_level(logging.WARNING, logger="sidecar.settings"):
        chosen = parse_settings([], {"SIDECAR_LAYOUT_STRATEGIES": "reuse,Sections,patch,sections"})
    assert chosen.layout_strategies == ("reuse", "patch")
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "'sections' was removed" in warnings[0]
    assert "queryAXTree" in warnings[0]
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="sidecar.settings"):
        alone = parse_settings(["--layout-strategies", "sections"], {})
    assert alone.layout_strategies == () and len(caplog.records) == 1
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="sidecar.settings"):
        parse_settings([], {"SIDECAR_LAYOUT_STRATEGIES": "reuse,patch"})
        parse_settings([], {})
    assert not caplog.records


def test_reset_isolation_defaults_to_context_and_follows_env_and_flag() -> None:
    assert parse_settings([], {}).reset_isolation == "context"
    assert parse_settings([], {"SIDECAR_RESET_ISOLATION": "process"}).reset_isolation == "process"
    assert parse_settings(["--reset-isolation", "context"],
                          {"SIDECAR_RESET_ISOLATION": "process"}).reset_isolation == "context"
