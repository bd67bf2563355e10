"""POST /api/v1/execute with real processes (no X needed: execute never touches the X thread)."""

from __future__ import annotations

import os
import signal
import time

from testbed.processes import alive


async def run(client, **body):
    resp = await client.post("/api/v1/execute", json=body)
    assert resp.status == 200, await resp.text()
    return await resp.json()


async def test_argv_exit_code_stdout_stderr(client):
    out = await run(client, command=["sh", "-c", "echo out; echo err >&2; exit 7"])
    assert (out["exit_code"], out["stdout"], out["stderr"]) == (7, "out\n", "err\n")
    assert out["timed_out"] is False and out["duration_s"] >= 0


async def test_shell_string_cwd_env_stdin_display(client, tmp_path):
    out = await run(client, command="pwd; echo $FOO $DISPLAY; cat", cwd=str(tmp_path),
                    env={"FOO": "bar"}, stdin="from stdin")
    assert out["stdout"] == f"{tmp_path}\nbar :99\nfrom stdin"
    out = await run(client, command="printf '%s|' a 'b c'", shell=False)
    assert out["stdout"] == "a|b c|"


async def test_output_cap_marks_truncation(client):
    out = await run(client, command="head -c 100000 /dev/zero | tr '\\0' x; echo e >&2",
                    max_output=1000)
    assert len(out["stdout"]) == 1000 and out["stdout_truncated"] is True
    assert out["stdout_bytes"] == 100000
    assert out["stderr"] == "e\n" and out["stderr_truncated"] is False


async def test_timeout_kills_the_whole_process_group(client, tmp_path):
    pidfile = tmp_path / "child.pid"
    out = await run(client, command=f"sleep 300 & echo $! > {pidfile}; wait", timeout=0.5)
    assert out["timed_out"] is True and out["signal"] == "SIGKILL"
    child = int(pidfile.read_text())
    deadline = time.monotonic() + 10
    while alive(child) and time.monotonic() < deadline:  # reaped by init shortly after the kill
        time.sleep(0.05)
    assert not alive(child)


async def test_background_child_holding_stdout_does_not_hang(client):
    out = await run(client, command="sleep 300 & echo started", timeout=60)
    assert out["stdout"] == "started\n" and out["exit_code"] == 0 and out["timed_out"] is False


async def test_detach_returns_a_live_pid_in_its_own_session(client, tmp_path):
    out = await run(client, command=["sleep", "30"], detach=True)
    pid = out["pid"]
    try:
        assert alive(pid)
        assert os.getsid(pid) == pid  # a new session, detached from desktopd's
    finally:
        os.kill(pid, signal.SIGKILL)


async def test_detached_output_goes_to_the_app_log_dir(make_client, tmp_path):
    client = await make_client(app_log_dir=str(tmp_path / "logs"))
    out = await run(client, command=["sh", "-c", "echo from-the-app"], detach=True)
    assert out["log"].startswith(str(tmp_path / "logs"))
    deadline = time.monotonic() + 10
    while alive(out["pid"]) and time.monotonic() < deadline:  # the app is short-lived
        time.sleep(0.02)
    with open(out["log"]) as fh:
        assert fh.read() == "from-the-app\n"
