"""The HTTP shell: the aiohttp app, the route table, request models and app keys."""
