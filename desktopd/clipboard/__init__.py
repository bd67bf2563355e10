"""GET/PUT /api/v1/clipboard: the CLIPBOARD selection as UTF-8 text."""
