"""The agent contract on the sidecar: snapshot -> ref -> act, and the browser's tools.

Modules: ``refs`` (short refs bound to an element and its document), ``tree`` (the /layout nodes
of one tab as the agent's tree), ``render`` (that tree as bounded text or JSON, diffed per
client), ``session`` (the per-connection state: refs, diffs, events, hooks), ``events`` (bounded
per-tab buffers of console messages, page errors, requests, dialogs, file choosers, downloads),
``resolve`` (a ref to the live element, or a 409 stale_ref), ``pointer`` (desktopd's XTEST
input and CDP input behind one interface), ``act`` (POST /act's kinds), ``tools`` (history,
console, PDF, screenshots, downloads, hooks), ``models`` (request models), ``routes`` (handlers
and the route table rows).
"""
