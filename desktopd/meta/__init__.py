"""The routes about the service itself: GET /health and GET /api/v1/openapi.json."""
