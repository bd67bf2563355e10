"""A test web site on a free 127.0.0.1 port whose routes a subclass adds (login_site, har_site)."""

from __future__ import annotations

from aiohttp import web


class LocalSite:
    def __init__(self) -> None:
        self.runner: web.AppRunner | None = None
        self.base = ""

    def add_routes(self, app: web.Application) -> None:
        raise NotImplementedError

    async def start(self) -> None:
        app = web.Application()
        self.add_routes(app)
        self.runner = web.AppRunner(app)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        self.base = f"http://127.0.0.1:{self.runner.addresses[0][1]}"

    async def stop(self) -> None:
        if self.runner is not None:
            await self.runner.cleanup()
