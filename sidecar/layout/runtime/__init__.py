"""What the layout code runs on: the browser side's seams (``seams``: the Protocols of sessions,
tabs, tracker, connection), asyncio helpers (``aio``) and the garbage collector kept off the
request's path (``memory``)."""
