"""Everything one CDP connection to Chromium has, made and dropped as a whole: the connection,
the target tracker, the agent layer's session, crash recovery, tab health and the layout
service. The supervisor holds at most one; a route asks it once (``supervisor.current()``) and
uses that one object, so it never sees parts of two connections."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..agent.session import AgentConfig, AgentSession
from ..cdp.connection import CDPConnection
from ..cdp.protocol.cdp_commands import BrowserGetVersionResult
from ..cdp.targets import TargetTracker
from ..layout.reading.readers import readers_named
from ..layout.runtime.seams import WindowCheck
from ..layout.service import LayoutService
from .crash_recovery import CrashRecovery
from .tab_health import TabHealth

if TYPE_CHECKING:   # the settings module reads browser defaults: a type-only import back
    from ..settings import Settings


@dataclass(frozen=True)
class ChromiumConnection:
    conn: CDPConnection
    tracker: TargetTracker
    agent: AgentSession             # refs, events, hooks: sidecar/agent
    recovery: CrashRecovery
    tab_health: TabHealth
    layout: LayoutService           # captures, refreshes, encoded bodies: sidecar/layout
    version: BrowserGetVersionResult

    @classmethod
    async def open(cls, ws_url: str, settings: Settings,
                   window_check: WindowCheck | None = None) -> ChromiumConnection:
        """``window_check``: the layout's check of the window against the compositor's (Wayland)."""
        conn = await CDPConnection.connect(ws_url, call_timeout=settings.cdp_timeout)
        tracker = TargetTracker(conn, configure_timeout=settings.cdp_timeout)
        agent = AgentSession(conn, tracker, AgentConfig(settings.downloads_dir, settings.cdp_timeout))
        try:
            await agent.start()          # before the tracker: it hears every page's first events
            await tracker.start()
            version = await conn.send("Browser.getVersion")
        except BaseException:
            agent.stop()
            await conn.close()
            raise
        recovery = CrashRecovery(conn, tracker, enabled=settings.recover_crashed_tabs,
                                 call_timeout=settings.cdp_timeout)
        recovery.start()
        strategies = settings.layout_strategies
        layout = LayoutService(conn, tracker, readers=readers_named(strategies),
                               refresh="refresh" in strategies, window_check=window_check)
        return cls(conn, tracker, agent, recovery, TabHealth(settings.tab_budget), layout, version)

    @property
    def connected(self) -> bool:
        return self.conn.connected

    async def close(self) -> None:
        """Stop every part, the layout service first (its refreshes use the rest)."""
        self.layout.stop()
        self.agent.stop()
        self.recovery.stop()
        self.tab_health.stop()
        self.tracker.stop()
        await self.conn.close()
