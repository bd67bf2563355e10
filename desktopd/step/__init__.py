"""POST /api/v1/step: act, settle and observe in one round trip."""
